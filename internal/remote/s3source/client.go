package s3source

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/smithy-go"

	"github.com/geopub/geopub/internal/fetch"
	"github.com/geopub/geopub/internal/remote"
)

// DefaultRegion is the region of a source that names none.
const DefaultRegion = "us-east-1"

// newClient builds an S3 client from the source alone: its endpoint
// (path-style addressing; AWS's virtual-hosted style when there is none),
// region and keys, or anonymous access without keys. Nothing is read from
// the environment, shared files or instance metadata.
func newClient(c remote.Conn) (*s3.Client, error) {
	if c.Fetch == nil || c.Fetch.Guard == nil {
		return nil, errors.New("s3source: no guarded fetch client")
	}
	region := c.Region
	if region == "" {
		region = DefaultRegion
	}
	var creds aws.CredentialsProvider = aws.AnonymousCredentials{}
	if c.Username != "" || c.Password != "" {
		id, secret := c.Username, c.Password
		creds = aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
			return aws.Credentials{AccessKeyID: id, SecretAccessKey: secret, Source: "geopub source"}, nil
		})
	}
	opts := s3.Options{
		Region:      region,
		Credentials: creds,
		HTTPClient:  c.Fetch.HTTPClient(fetch.Options{SSLVerify: c.SSLVerify}, nil),
		// The scan job retries; one attempt per call keeps a dead
		// server from holding a worker through the SDK's back-off too.
		RetryMaxAttempts:           1,
		RequestChecksumCalculation: aws.RequestChecksumCalculationWhenRequired,
		ResponseChecksumValidation: aws.ResponseChecksumValidationWhenRequired,
	}
	if c.Endpoint != "" {
		if problem := CheckEndpoint(c.Endpoint); problem != "" {
			return nil, remote.Failed("%s", problem)
		}
		opts.BaseEndpoint = aws.String(c.Endpoint)
		opts.UsePathStyle = true
	}
	return s3.New(opts), nil
}

// CheckEndpoint reports what is wrong with an endpoint URL, or "". The
// guard checks its address when the connection is made.
func CheckEndpoint(raw string) string {
	u, err := url.Parse(raw)
	switch {
	case err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "":
		return "Enter the http(s) URL of an S3-compatible server, such as https://s3.example.com."
	case u.User != nil:
		return "The endpoint must not contain credentials: give them as options.username and options.password."
	case u.RawQuery != "" || u.Fragment != "":
		return "The endpoint has no query or fragment."
	}
	return ""
}

// refusals are the error codes of a server that does not accept the keys.
var refusals = map[string]bool{
	"InvalidAccessKeyId": true, "SignatureDoesNotMatch": true, "AccessDenied": true,
	"InvalidToken": true, "ExpiredToken": true, "AuthorizationHeaderMalformed": true, "Forbidden": true,
	"InvalidClientTokenId": true, "XAdminUserNotFound": true, // versitygw's answer to an unknown key
}

// explain turns an SDK error met while doing what into a message for the
// scan log that holds neither key.
func explain(err error, c remote.Conn, what string) error {
	if errors.Is(err, fetch.ErrForbiddenAddress) {
		return fmt.Errorf("%w: the object store's address is private or internal, which sources may not reach", fetch.ErrForbiddenAddress)
	}
	var api smithy.APIError
	if errors.As(err, &api) {
		code := api.ErrorCode()
		var status interface{ HTTPStatusCode() int }
		forbidden := errors.As(err, &status) && (status.HTTPStatusCode() == 401 || status.HTTPStatusCode() == 403)
		switch {
		case refusals[code] || forbidden:
			return remote.Failed("%s", scrub(fmt.Sprintf("The object store refused the credentials while %s (%s). Check options.username (the access key id) and options.password (the secret key).", what, code), c))
		case code == "NoSuchBucket":
			return remote.Failed("%s", scrub(fmt.Sprintf("The bucket does not exist (while %s).", what), c))
		}
		return errors.New(scrub(fmt.Sprintf("The object store answered %s while %s: %s", code, what, api.ErrorMessage()), c))
	}
	// Connection errors name no address (fetch.DialError); an OpError
	// from elsewhere is told by its reason alone.
	var de *fetch.DialError
	if errors.As(err, &de) {
		return errors.New(scrub(fmt.Sprintf("Could not reach the object store while %s: %s", what, de.Error()), c))
	}
	var op *net.OpError
	if errors.As(err, &op) && op.Err != nil {
		return errors.New(scrub(fmt.Sprintf("Could not reach the object store while %s: %s", what, op.Err.Error()), c))
	}
	return errors.New(scrub(fmt.Sprintf("The object store failed while %s: %s", what, err), c))
}

// scrub removes the source's keys from a message, should a server echo
// them.
func scrub(msg string, c remote.Conn) string {
	for _, s := range []string{c.Password, c.Username} {
		if s != "" {
			msg = strings.ReplaceAll(msg, s, "***")
		}
	}
	return msg
}
