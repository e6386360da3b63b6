package webhooks

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// secretPrefix starts every signing secret, as Standard Webhooks has it.
const secretPrefix = "whsec_"

// NewSecret makes a signing secret: whsec_ and 32 random bytes in
// base64.
func NewSecret() string {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		panic(err) // crypto/rand does not fail on supported platforms
	}
	return secretPrefix + base64.StdEncoding.EncodeToString(b)
}

// Sign is the Standard Webhooks signature of a message: v1, and the
// base64 HMAC-SHA256 under the secret's key of "id.timestamp.body".
func Sign(secret, msgID string, at time.Time, body []byte) (string, error) {
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, secretPrefix))
	if err != nil || len(key) == 0 {
		return "", errors.New("webhooks: the secret is not whsec_ and base64")
	}
	m := hmac.New(sha256.New, key)
	m.Write([]byte(msgID))
	m.Write([]byte{'.'})
	m.Write([]byte(strconv.FormatInt(at.Unix(), 10)))
	m.Write([]byte{'.'})
	m.Write(body)
	return "v1," + base64.StdEncoding.EncodeToString(m.Sum(nil)), nil
}

// Headers are a message's Standard Webhooks headers, signed by each of
// secrets (during a rotation, the new secret and the old one), and its
// content type.
func Headers(secrets []string, msgID string, at time.Time, body []byte) (http.Header, error) {
	h := http.Header{}
	sigs := make([]string, 0, len(secrets))
	for _, s := range secrets {
		sig, err := Sign(s, msgID, at, body)
		if err != nil {
			return nil, err
		}
		sigs = append(sigs, sig)
	}
	h.Set("Content-Type", "application/json")
	h.Set("webhook-id", msgID)
	h.Set("webhook-timestamp", strconv.FormatInt(at.Unix(), 10))
	h.Set("webhook-signature", strings.Join(sigs, " "))
	return h, nil
}
