package fleet

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
)

// --prometheus may carry basic auth as http://user:password@host:9090;
// the password must never reach an error, a log or a terminal. A URL that
// parses prints through url.URL.Redacted (user:xxxxx@); one that does not
// parse has its userinfo cut by hand, since url.Error would quote it
// whole.

// badURL says that raw is not a URL without repeating its password.
func badURL(raw string, err error) error {
	shown := redactRaw(raw)
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	if shown != raw {
		// The detail of a parse error can quote part of the password
		// (an escape like "%zz"): say only that it does not parse.
		return fmt.Errorf("fleet: --prometheus %s is not a URL: want http[s]://[USER:PASSWORD@]HOST:PORT", shown)
	}
	return fmt.Errorf("fleet: --prometheus %s is not a URL: %w: want http[s]://[USER:PASSWORD@]HOST:PORT", shown, err)
}

// redactRaw hides the userinfo of a URL that may not parse: everything
// between "//" and the last "@" of the authority.
func redactRaw(raw string) string {
	if u, err := url.Parse(raw); err == nil {
		return u.Redacted()
	}
	_, rest, ok := strings.Cut(raw, "//")
	if !ok {
		rest = raw
	}
	authority, _, _ := strings.Cut(rest, "/")
	at := strings.LastIndex(authority, "@")
	if at < 0 {
		return raw
	}
	start := len(raw) - len(rest)
	return raw[:start] + "xxxxx" + raw[start+at:]
}

// unwrapURL takes the *url.Error off an error of net/http, which names
// the URL (net/http masks the password, but not the user, and the
// caller names the server itself).
func unwrapURL(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}
