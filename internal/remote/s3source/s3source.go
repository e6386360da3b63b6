// Package s3source reads sources kept in an object-store bucket (AWS S3
// or any S3-compatible server): the objects under the source's prefix are
// copied, streamed to disk, into the scan's inbox and scanned like an
// upload.
//
// Only the source's own credentials are used (or none, for a public
// bucket): never the environment's, the shared AWS files or the instance
// metadata service. Every connection dials through the fetch guard.
package s3source

import (
	"context"
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/geopub/geopub/internal/remote"
)

// Kind is the object-store source kind.
type Kind struct{}

var _ remote.Files = Kind{}

// Gather copies the objects under the source's prefix into inbox, keeping
// their paths below the prefix.
func (Kind) Gather(ctx context.Context, c remote.Conn, inbox string, note func(string)) ([]string, error) {
	loc, problem := ParseURL(c.URL)
	if problem != "" {
		return nil, remote.Failed("%s", problem)
	}
	client, err := newClient(c)
	if err != nil {
		return nil, err
	}
	where := fmt.Sprintf("s3://%s/%s", loc.Bucket, loc.Prefix)
	copier := remote.NewCopier(inbox, c.Fetch)
	var out []string
	pages := s3.NewListObjectsV2Paginator(client, &s3.ListObjectsV2Input{Bucket: aws.String(loc.Bucket), Prefix: aws.String(loc.Prefix)})
	for pages.HasMorePages() {
		page, err := pages.NextPage(ctx)
		if err != nil {
			return nil, explain(err, c, "listing "+where)
		}
		for _, obj := range page.Contents {
			key := aws.ToString(obj.Key)
			if strings.HasSuffix(key, "/") {
				continue // a folder marker
			}
			rel, ok := remote.CleanRel(strings.TrimPrefix(key, loc.Prefix))
			if !ok {
				note(fmt.Sprintf("Skipped object %q: its name is not a safe relative path", key))
				continue
			}
			if err := fetchObject(ctx, client, loc.Bucket, key, rel, copier, c); err != nil {
				return nil, err
			}
			out = append(out, rel)
		}
	}
	if len(out) == 0 {
		return nil, remote.Failed("There are no objects under %s.", where)
	}
	note(fmt.Sprintf("Copied %d object(s) from %s", len(out), where))
	return out, nil
}

func fetchObject(ctx context.Context, client *s3.Client, bucket, key, rel string, copier *remote.Copier, c remote.Conn) error {
	obj, err := client.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(bucket), Key: aws.String(key)})
	if err != nil {
		return explain(err, c, "reading "+key)
	}
	defer obj.Body.Close()
	if err := copier.Copy(rel, obj.Body); err != nil {
		return fmt.Errorf("copying %s: %w", key, err)
	}
	return nil
}
