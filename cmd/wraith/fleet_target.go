package main

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
)

// controlTarget is one served twin that a command sends control calls
// to: `wraith coverage`'s twins and `wraith fleet`'s replicas.
type controlTarget struct {
	Name  string // the project's name for the twin; empty for a URL given on the command line
	URL   string // base URL, without a trailing slash
	token string // control token; empty when the twin needs none
}

// baseURL checks that raw is a served twin's base URL, as the ready
// JSON's serve.url gives it, and returns it without a trailing slash. flag
// names where it came from, for the message.
func baseURL(flag, raw string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" {
		return "", usagef("%s: %q is not a twin's base URL: want http://HOST:PORT, as the ready JSON's serve.url", flag, raw)
	}
	return strings.TrimSuffix(raw, "/"), nil
}

// checkTokenEnv refuses a --control-token-env whose variable is empty or
// unset, before anything is sent.
func checkTokenEnv(f *factory, env string) error {
	if env != "" && f.Getenv(env) == "" {
		return usagef("--control-token-env %s: the variable is empty or unset; export the control token in it", env)
	}
	return nil
}

// urlTargets are the twins named on the command line: all of them take
// the token in tokenEnv (checked by checkTokenEnv).
func urlTargets(f *factory, urls []string, tokenEnv string) []controlTarget {
	token := ""
	if tokenEnv != "" {
		token = f.Getenv(tokenEnv)
	}
	out := make([]controlTarget, len(urls))
	for i, u := range urls {
		out[i] = controlTarget{URL: u, token: token}
	}
	return out
}

// projectTargets are the ready twins of the project that `wraith up` runs
// here (file names its manifest), each with its own control token: the
// variable its control_token_env names, or tokenEnv for every twin when
// the command line gives one. flag names the option that would have
// named twins instead, for the messages.
func projectTargets(f *factory, file, tokenEnv, flag string) ([]controlTarget, error) {
	st, err := probeProject(f, file)
	if err != nil {
		return nil, fmt.Errorf("no %s given, and no project to take the twins from: %w", flag, err)
	}
	var out []controlTarget
	for _, t := range st.Twins {
		if t.Ready.Serve.URL == "" {
			continue
		}
		env := t.ControlTokenEnv
		if tokenEnv != "" {
			env = tokenEnv
		}
		target := controlTarget{Name: t.Name, URL: strings.TrimSuffix(t.Ready.Serve.URL, "/")}
		if env != "" {
			if target.token = f.Getenv(env); target.token == "" {
				return nil, fmt.Errorf("twin %s needs the control token in $%s, which is empty or unset: export it, or pass --control-token-env VAR", t.Name, env)
			}
		}
		out = append(out, target)
	}
	if len(out) == 0 {
		return nil, errors.New("the project wraith up runs here has no ready twins yet: wait for wraith status to show them, or pass " + flag)
	}
	return out, nil
}
