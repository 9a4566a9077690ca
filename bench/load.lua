-- wrk script shared by every bench and soak load, so that each server sees
-- byte-identical requests and wrk does the same work per request whatever
-- the server. Configured through the environment (bench/harness sets it):
--
--   WRK_MODE            get | post | mix        (default get)
--   WRK_GET_PATH        default /v1/customers/cus_123
--   WRK_POST_PATH       default /v1/customers
--   WRK_BODY            form body of the creates
--   WRK_SESSIONS        number of sessions to spread requests over; 0 sends
--                       no X-Wraith-Session header (default 0)
--   WRK_SESSION_PREFIX  session names are PREFIX0 .. PREFIX(N-1) (default s-)
--   WRK_POST_EVERY      in mix mode, one request in this many is a create
--   WRK_AUTH            Authorization header value (stripe-mock needs one)
--   WRK_COUNT_STATUS    1 counts responses by status class (soak)
--
-- Every request string is formatted once in init(), so the per-request
-- cost inside wrk is a table lookup. done() prints one line starting with
-- WRKJSON that bench/harness parses; response() counts status classes so
-- that a soak can tell 5xx from 4xx (only with WRK_COUNT_STATUS=1).

local mode = os.getenv("WRK_MODE") or "get"
local get_path = os.getenv("WRK_GET_PATH") or "/v1/customers/cus_123"
local post_path = os.getenv("WRK_POST_PATH") or "/v1/customers"
local body = os.getenv("WRK_BODY") or "email=jenny%40example.com&name=Jenny+Rosen&description=bench&metadata[order]=42"
local sessions = tonumber(os.getenv("WRK_SESSIONS") or "0")
local prefix = os.getenv("WRK_SESSION_PREFIX") or "s-"
local post_every = tonumber(os.getenv("WRK_POST_EVERY") or "5")
local auth = os.getenv("WRK_AUTH") or ""

local threads = {}
local counter = 0

function setup(thread)
   thread:set("tid", counter)
   counter = counter + 1
   table.insert(threads, thread)
end

local gets, posts = {}, {}
local n, i, k = 1, 0, 0
s2, s3, s4, s5 = 0, 0, 0, 0

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
      if sessions > 0 then name = prefix .. s end
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
   if mode == "mix" then
      k = k + 1
      if k % post_every == 0 then return posts[i] end
   end
   return gets[i]
end

-- Only when asked: a response() function makes wrk build a header table
-- and a body string per response, client work that would eat into the
-- server's share of the cores in a benchmark.
if os.getenv("WRK_COUNT_STATUS") == "1" then
   function response(status, hdrs, b)
      if status >= 500 then s5 = s5 + 1
      elseif status >= 400 then s4 = s4 + 1
      elseif status >= 300 then s3 = s3 + 1
      else s2 = s2 + 1 end
   end
end

function done(summary, latency, requests)
   local c2, c3, c4, c5 = 0, 0, 0, 0
   for _, t in ipairs(threads) do
      c2 = c2 + (t:get("s2") or 0)
      c3 = c3 + (t:get("s3") or 0)
      c4 = c4 + (t:get("s4") or 0)
      c5 = c5 + (t:get("s5") or 0)
   end
   local e = summary.errors
   io.write(string.format(
      'WRKJSON {"requests":%d,"duration_us":%d,"bytes":%d,' ..
      '"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d,' ..
      '"p50_us":%d,"p90_us":%d,"p99_us":%d,"max_us":%d,"mean_us":%.1f,' ..
      '"s2xx":%d,"s3xx":%d,"s4xx":%d,"s5xx":%d}\n',
      summary.requests, summary.duration, summary.bytes,
      e.connect, e.read, e.write, e.status, e.timeout,
      latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.max, latency.mean,
      c2, c3, c4, c5))
end
