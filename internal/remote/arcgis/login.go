package arcgis

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/geopub/geopub/internal/remote/pagefile"
)

// login gets a token when the server uses token security, from its own
// token service (never another origin's: the password goes nowhere
// else). Servers that use HTTP authentication instead get the
// credentials with each request.
func (s *server) login(ctx context.Context, user, pass string) error {
	var info struct {
		AuthInfo struct {
			TokenBased bool   `json:"isTokenBasedSecurity"`
			TokenURL   string `json:"tokenServicesUrl"`
		} `json:"authInfo"`
	}
	iu := *s.base
	iu.Path = strings.TrimSuffix(iu.Path, "/services") + "/info"
	iu.RawQuery = "f=json"
	if err := s.getJSON(ctx, &iu, &info); err != nil || !info.AuthInfo.TokenBased || info.AuthInfo.TokenURL == "" {
		return nil
	}
	tu, err := url.Parse(info.AuthInfo.TokenURL)
	if err != nil || !strings.EqualFold(tu.Host, s.base.Host) {
		return fmt.Errorf("the server's token service is on another host; Geopub sends the password only to the source's own server")
	}
	// The info answer may name https for a server reached over http (or
	// the reverse): keep the source's scheme.
	tu.Scheme = s.base.Scheme
	form := url.Values{"username": {user}, "password": {pass}, "client": {"referer"},
		"referer": {s.base.Scheme + "://" + s.base.Host}, "expiration": {"120"}, "f": {"json"}}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, tu.String(), strings.NewReader(form.Encode()))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	resp, err := s.hc.Do(req)
	if err != nil {
		return fmt.Errorf("sign-in: %w", pagefile.Transport(err))
	}
	defer resp.Body.Close()
	var out struct {
		Token string `json:"token"`
	}
	body := make([]byte, 0, 4096)
	buf := make([]byte, 4096)
	for len(body) < 1<<20 {
		n, rerr := resp.Body.Read(buf)
		body = append(body, buf[:n]...)
		if rerr != nil {
			break
		}
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("sign-in: the server answered %s", resp.Status)
	}
	if aerr := errorOf(body); aerr != nil {
		// The server's message might echo what was sent.
		msg := strings.ReplaceAll(aerr.Error(), pass, "***")
		if len(user) > 2 {
			msg = strings.ReplaceAll(msg, user, "***")
		}
		return fmt.Errorf("sign-in failed: %s", msg)
	}
	if json.Unmarshal(body, &out) != nil || out.Token == "" {
		return fmt.Errorf("sign-in: the server's answer holds no token")
	}
	s.token = out.Token
	return nil
}
