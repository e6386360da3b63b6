// Package s3test starts a real S3-compatible server for tests: versitygw
// (a Go S3 gateway that checks SigV4 signatures) over a temporary folder,
// listening on 127.0.0.1. Its command is built once per machine from the
// pinned module in the versitygw folder beside this file (a module of its
// own, so the service's go.mod does not carry the gateway's dependencies)
// and kept in the user's cache folder.
package s3test

import (
	"bytes"
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/geopub/geopub/internal/moduleroot"
	"github.com/geopub/geopub/internal/testtier"
)

// Version is the pinned versitygw release (see versitygw/go.mod).
const Version = "v1.8.0"

// The keys of the server's root user.
const (
	AccessKey = "GEOPUBTESTKEY"
	SecretKey = "geopub-test-secret-0123456789"
)

// Server is a running gateway.
type Server struct {
	// Endpoint is its http URL.
	Endpoint string
	// Root is the folder whose subfolders are the buckets.
	Root string
}

var (
	buildOnce sync.Once
	binary    string
	buildErr  error
)

// build returns the gateway's command, building it the first time.
func build() (string, error) {
	buildOnce.Do(func() {
		cache, err := os.UserCacheDir()
		if err != nil {
			cache = os.TempDir()
		}
		binary = filepath.Join(cache, "geopub-test", "versitygw-"+Version, "versitygw")
		if _, err := os.Stat(binary); err == nil {
			return
		}
		root, err := moduleroot.Dir()
		if err != nil {
			buildErr = err
			return
		}
		mod := filepath.Join(root, "internal", "remote", "s3source", "s3test", "versitygw")
		if err := os.MkdirAll(filepath.Dir(binary), 0o755); err != nil {
			buildErr = err
			return
		}
		// Test binaries of several packages may start at once: one
		// builds, the others wait for it.
		lock, err := os.OpenFile(binary+".lock", os.O_CREATE|os.O_RDWR, 0o644)
		if err != nil {
			buildErr = err
			return
		}
		defer lock.Close()
		if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
			buildErr = err
			return
		}
		defer syscall.Flock(int(lock.Fd()), syscall.LOCK_UN)
		if _, err := os.Stat(binary); err == nil {
			return
		}
		tmp := fmt.Sprintf("%s.%d.tmp", binary, os.Getpid())
		goCmd, err := exec.LookPath("go")
		if err != nil {
			buildErr = fmt.Errorf("building versitygw: %w", err)
			return
		}
		cmd := exec.Command(goCmd, "build", "-o", tmp, "github.com/versity/versitygw/cmd/versitygw")
		cmd.Dir = mod
		cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=readonly", "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("building versitygw %s: %v\n%s", Version, err, out)
			return
		}
		buildErr = os.Rename(tmp, binary)
	})
	return binary, buildErr
}

// Start runs a gateway for the test's duration. Without it (it could not be
// built), the test is skipped, unless GEOPUB_REQUIRE_TOOLS is set, when it
// fails.
func Start(t testing.TB) *Server { t.Helper(); return StartWith(t, Options{}) }

// StartTLS is Start serving https with a self-signed certificate for
// 127.0.0.1.
func StartTLS(t testing.TB) *Server { t.Helper(); return StartWith(t, Options{TLS: true}) }

// Options are the ways StartWith can differ from Start.
type Options struct {
	// TLS serves https with a self-signed certificate for 127.0.0.1.
	TLS bool
	// Metadata keeps the gateway's metadata store (extended attributes
	// of the files under Root) instead of running it with --nometa: the
	// store that holds content types and multipart uploads' parts
	// between their calls, as a real deployment does.
	Metadata bool
	// AccessLog, when set, is the file the gateway writes one line per
	// request to (its --access-log), so that a test can see which S3
	// calls were made.
	AccessLog string
}

// StartWith is Start with opts.
func StartWith(t testing.TB, opts Options) *Server {
	t.Helper()
	testtier.FullOnly(t, "starts the versitygw S3 server")
	return start(t, opts)
}

func start(t testing.TB, opts Options) *Server {
	t.Helper()
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	bin, err := build()
	if err != nil {
		if os.Getenv("GEOPUB_REQUIRE_TOOLS") == "" {
			t.Skipf("versitygw unavailable: %v", err)
		}
		t.Fatal(err)
	}
	root := t.TempDir()
	port := freePort(t)
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	var logs bytes.Buffer
	args := []string{"--access", AccessKey, "--secret", SecretKey, "--port", addr, "--quiet"}
	scheme := "http"
	if opts.AccessLog != "" {
		args = append(args, "--access-log", opts.AccessLog)
	}
	if opts.TLS {
		cert, key := selfSigned(t)
		args = append(args, "--cert", cert, "--key", key)
		scheme = "https"
	}
	backend := []string{"posix", "--nometa", root}
	if opts.Metadata {
		backend = []string{"posix", root}
	}
	cmd := exec.Command(bin, append(args, backend...)...)
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting versitygw: %v", err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-done
	})
	deadline := time.Now().Add(10 * time.Second)
	for {
		if c, err := net.DialTimeout("tcp", addr, 200*time.Millisecond); err == nil {
			c.Close()
			break
		}
		select {
		case <-done:
			t.Fatalf("versitygw exited: %s", logs.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("versitygw did not listen on %s: %s", addr, logs.String())
		}
		time.Sleep(30 * time.Millisecond)
	}
	return &Server{Endpoint: scheme + "://" + addr, Root: root}
}

func freePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// Client is an S3 client of the server with the root user's keys.
func (s *Server) Client() *s3.Client {
	return s3.New(s3.Options{
		Region:       "us-east-1",
		BaseEndpoint: aws.String(s.Endpoint),
		UsePathStyle: true,
		HTTPClient: &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{
			TLSClientConfig: &tls.Config{InsecureSkipVerify: true}, //nolint:gosec // the test's own self-signed server
		}},
		Credentials: aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
			return aws.Credentials{AccessKeyID: AccessKey, SecretAccessKey: SecretKey}, nil
		}),
		RequestChecksumCalculation: aws.RequestChecksumCalculationWhenRequired,
		ResponseChecksumValidation: aws.ResponseChecksumValidationWhenRequired,
	})
}

// CreateBucket makes a bucket.
func (s *Server) CreateBucket(t testing.TB, bucket string) {
	t.Helper()
	if _, err := s.Client().CreateBucket(context.Background(), &s3.CreateBucketInput{Bucket: aws.String(bucket)}); err != nil {
		t.Fatalf("creating bucket %s: %v", bucket, err)
	}
}

// Put uploads an object.
func (s *Server) Put(t testing.TB, bucket, key string, body []byte) {
	t.Helper()
	if _, err := s.Client().PutObject(context.Background(), &s3.PutObjectInput{
		Bucket: aws.String(bucket), Key: aws.String(key), Body: bytes.NewReader(body),
	}); err != nil {
		t.Fatalf("putting %s/%s: %v", bucket, key, err)
	}
}

// Delete removes an object.
func (s *Server) Delete(t testing.TB, bucket, key string) {
	t.Helper()
	if _, err := s.Client().DeleteObject(context.Background(), &s3.DeleteObjectInput{
		Bucket: aws.String(bucket), Key: aws.String(key),
	}); err != nil {
		t.Fatalf("deleting %s/%s: %v", bucket, key, err)
	}
}
