package s3source

import (
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strings"
)

// bucketName is S3's rule for bucket names: 3 to 63 lowercase letters,
// digits, dots and hyphens, starting and ending with a letter or digit.
var bucketName = regexp.MustCompile(`^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$`)

// regionName is what a region looks like (us-east-1, eu-central-2, auto).
var regionName = regexp.MustCompile(`^[a-z0-9][a-z0-9-]{0,62}$`)

// Location is a bucket and the key prefix under which a source's objects
// are.
type Location struct {
	Bucket string
	// Prefix is empty (the whole bucket) or ends with "/".
	Prefix string
}

// ParseURL reads s3://bucket/optional/prefix. The prefix is a folder: the
// objects under it are the source's files, named relative to it. A URL it
// cannot read gives a message saying why.
func ParseURL(raw string) (Location, string) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || !strings.EqualFold(u.Scheme, "s3") {
		return Location{}, "Enter an object-store URL such as s3://bucket/prefix."
	}
	if u.User != nil {
		return Location{}, "The URL must not contain credentials: give them as options.username and options.password."
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return Location{}, "An object-store URL has no query or fragment: s3://bucket/prefix."
	}
	if !bucketName.MatchString(u.Host) || strings.Contains(u.Host, "..") {
		return Location{}, fmt.Sprintf("%q is not a valid bucket name: use 3 to 63 lowercase letters, digits, dots and hyphens.", u.Host)
	}
	prefix := strings.TrimLeft(u.Path, "/")
	if prefix != "" && !strings.HasSuffix(prefix, "/") {
		prefix += "/"
	}
	return Location{Bucket: u.Host, Prefix: prefix}, ""
}

// CheckRegion reports what is wrong with a region name, or "".
func CheckRegion(region string) string {
	if region == "" || regionName.MatchString(region) {
		return ""
	}
	return "Enter a region such as us-east-1."
}

// CheckURL is remote.URLChecker: what ParseURL finds wrong with u.
func (Kind) CheckURL(u *url.URL) error {
	if _, problem := ParseURL(u.String()); problem != "" {
		return errors.New(problem)
	}
	return nil
}
