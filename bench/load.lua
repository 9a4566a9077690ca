-- wrk script shared by every benchmark load, so that each server sees
-- byte-identical requests and wrk does the same work per request whatever
-- the server. Configured through the environment (bench/harness sets it):
--
--   WRK_MODE            get | post              (default get)
--   WRK_GET_PATH        default /v1/customers/cus_123
--   WRK_POST_PATH       default /v1/customers
--   WRK_BODY            form body of the creates
--   WRK_SESSIONS        number of sessions to spread requests over; 0 sends
--                       no X-Wraith-Session header (default 0)
--   WRK_SESSION_PREFIX  session names are PREFIX0 .. PREFIX(N-1) (default s-)
--   WRK_SESSION_WIDTH   numbers in session names are padded with zeros to
--                       this many digits (default 1: no padding), so that
--                       every shape of load sends requests of one length
--   WRK_AUTH            Authorization header value (stripe-mock needs one)
--
-- Every request string is formatted once in init(), so the per-request
-- cost inside wrk is a table lookup. done() prints one line starting with
-- WRKJSON that bench/harness parses. There is no response() function: it
-- would make wrk build a header table and a body string per response,
-- client work that would eat into the server's share of the cores.

local mode = os.getenv("WRK_MODE") or "get"
local get_path = os.getenv("WRK_GET_PATH") or "/v1/customers/cus_123"
local post_path = os.getenv("WRK_POST_PATH") or "/v1/customers"
local body = os.getenv("WRK_BODY") or "email=jenny%40example.com&name=Jenny+Rosen&description=bench&metadata[order]=42"
local sessions = tonumber(os.getenv("WRK_SESSIONS") or "0")
local prefix = os.getenv("WRK_SESSION_PREFIX") or "s-"
local width = tonumber(os.getenv("WRK_SESSION_WIDTH") or "1")
local auth = os.getenv("WRK_AUTH") or ""

local counter = 0

function setup(thread)
   thread:set("tid", counter)
   counter = counter + 1
end

local gets, posts = {}, {}
local n, i = 1, 0

local function headers(session, form)
   local h = {}
   if auth ~= "" then h["Authorization"] = auth end
   if session then h["X-Wraith-Session"] = session end
   if form then h["Content-Type"] = "application/x-www-form-urlencoded" end
   return h
end

function init(args)
   n = math.max(sessions, 1)
   for s = 0, n - 1 do
      local name = nil
      if sessions > 0 then name = prefix .. string.format("%0" .. width .. "d", s) end
      gets[s + 1] = wrk.format("GET", get_path, headers(name, false), nil)
      posts[s + 1] = wrk.format("POST", post_path, headers(name, true), body)
   end
   -- Threads start at different sessions so that they do not move in step.
   i = (tid * 7919) % n
end

function request()
   i = i + 1
   if i > n then i = 1 end
   if mode == "post" then return posts[i] end
   return gets[i]
end

function done(summary, latency, requests)
   local e = summary.errors
   io.write(string.format(
      'WRKJSON {"requests":%d,"duration_us":%d,"bytes":%d,' ..
      '"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d,' ..
      '"p50_us":%d,"p90_us":%d,"p99_us":%d,"max_us":%d,"mean_us":%.1f}\n',
      summary.requests, summary.duration, summary.bytes,
      e.connect, e.read, e.write, e.status, e.timeout,
      latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.max, latency.mean))
end
