package blob

import (
	"context"
	"fmt"
	"log/slog"
	"net/url"
	"strconv"

	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/aws/smithy-go/logging"
	gcaws "gocloud.dev/aws"
	gcblob "gocloud.dev/blob"
	"gocloud.dev/blob/s3blob"
)

// openS3 opens the bucket of an s3:// URL. It takes the parameters
// gocloud's s3blob URL opener takes, with two differences that matter to
// operators:
//
//   - With endpoint= (a store other than AWS) the checksum modes default to
//     when_required: newer AWS SDKs send and expect checksums that many
//     S3-compatible servers do not know, and then every upload fails.
//     Parameters in the URL still win.
//   - The SDK's own log lines (checksum warnings, retries) go to logger as
//     records, not as plain text on stderr beside the JSON log.
func openS3(ctx context.Context, u *url.URL, logger *slog.Logger) (*gcblob.Bucket, error) {
	q := u.Query()
	var (
		opts []func(*s3.Options)
		bo   s3blob.Options
	)
	if v := q.Get("ssetype"); v != "" {
		q.Del("ssetype")
		t := types.ServerSideEncryption(v)
		switch t {
		case types.ServerSideEncryptionAes256, types.ServerSideEncryptionAwsKms, types.ServerSideEncryptionAwsKmsDsse:
		default:
			return nil, fmt.Errorf("ssetype=%q: want AES256, aws:kms or aws:kms:dsse", v)
		}
		bo.EncryptionType = t
	}
	if v := q.Get("kmskeyid"); v != "" {
		q.Del("kmskeyid")
		bo.KMSEncryptionID = v
	}
	for _, p := range []struct {
		key string
		set func(*s3.Options, bool)
	}{
		{"use_path_style", func(o *s3.Options, b bool) { o.UsePathStyle = b }},
		{"s3ForcePathStyle", func(o *s3.Options, b bool) { o.UsePathStyle = b }},
		{"disable_https", func(o *s3.Options, b bool) { o.EndpointOptions.DisableHTTPS = b }},
		{"accelerate", func(o *s3.Options, b bool) { o.UseAccelerate = b }},
	} {
		v := q.Get(p.key)
		if v == "" {
			continue
		}
		q.Del(p.key)
		b, err := strconv.ParseBool(v)
		if err != nil {
			return nil, fmt.Errorf("%s=%q: want true or false", p.key, v)
		}
		opts = append(opts, func(o *s3.Options) { p.set(o, b) })
	}
	if q.Get("endpoint") != "" {
		for _, k := range []string{"request_checksum_calculation", "response_checksum_validation"} {
			if q.Get(k) == "" {
				q.Set(k, "when_required")
			}
		}
	}
	cfg, err := gcaws.V2ConfigFromURLParams(ctx, q)
	if err != nil {
		return nil, err
	}
	cfg.Logger = sdkLogger{logger}
	client := s3.NewFromConfig(cfg, opts...)
	// The upload manager does not read the client's checksum mode.
	bo.RequestChecksumCalculation = cfg.RequestChecksumCalculation
	return s3blob.OpenBucket(ctx, client, u.Host, &bo)
}

// sdkLogger writes the AWS SDK's log lines as slog records.
type sdkLogger struct{ l *slog.Logger }

func (s sdkLogger) Logf(c logging.Classification, format string, v ...any) {
	level := slog.LevelDebug
	if c == logging.Warn {
		level = slog.LevelWarn
	}
	s.l.Log(context.Background(), level, fmt.Sprintf(format, v...), "component", "aws-sdk")
}
