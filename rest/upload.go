package rest

import (
	"encoding/json"
	"fmt"
	"mime"
	"net/http"
	"path"
	"strings"

	"github.com/99designs/gqlgen/graphql"

	"github.com/geopub/geopub/graph"
	"github.com/geopub/geopub/internal/apperr"
)

// DefaultMaxUploadBytes bounds one multipart upload request unless the
// API is told otherwise (API.MaxUploadBytes).
const DefaultMaxUploadBytes = 2048 << 20

// uploadMemory is how much of an upload's files is held in memory; the
// rest is spooled to temporary files, which the server removes when the
// request ends.
const uploadMemory = 32 << 20

// readUpload reads a multipart upload source of at most max bytes: a
// `source` part holding the source JSON and file parts (file0, file1, ...)
// whose file names are the upload paths, folders included. Call it only
// once the caller is authorized to upload: parsing spools files to disk.
func readUpload(r *http.Request, max int64) (graph.CreateSourceInput, []*graphql.Upload, error) {
	if err := limitBody(r, max); err != nil {
		return graph.CreateSourceInput{}, nil, err
	}
	if err := r.ParseMultipartForm(uploadMemory); err != nil {
		if tl := bodyError(err); tl != nil {
			return graph.CreateSourceInput{}, nil, tl
		}
		return graph.CreateSourceInput{}, nil, apperr.New(apperr.Invalid, "Could not read the multipart body: %s", err)
	}
	var body sourceBody
	meta := r.MultipartForm.Value["source"]
	if fhs := r.MultipartForm.File["source"]; len(meta) == 0 && len(fhs) == 1 {
		f, err := fhs[0].Open()
		if err != nil {
			return graph.CreateSourceInput{}, nil, err
		}
		defer f.Close()
		if err := json.NewDecoder(f).Decode(&body); err != nil {
			return graph.CreateSourceInput{}, nil, apperr.Field("source", "Must be the source as JSON.")
		}
	} else if len(meta) == 1 {
		if err := json.Unmarshal([]byte(meta[0]), &body); err != nil {
			return graph.CreateSourceInput{}, nil, apperr.Field("source", "Must be the source as JSON.")
		}
	} else {
		return graph.CreateSourceInput{}, nil, apperr.Field("source", "Send the source JSON as the part named source.")
	}
	in, err := body.createInput()
	if err != nil {
		return in, nil, err
	}
	seen := map[string]bool{}
	var files []*graphql.Upload
	for name, fhs := range r.MultipartForm.File {
		if name == "source" {
			continue
		}
		for _, fh := range fhs {
			p, err := uploadPath(fh.Header.Get("Content-Disposition"), fh.Filename)
			if err != nil {
				return in, nil, apperr.Field(name, err.Error())
			}
			if seen[p] {
				return in, nil, apperr.Field(name, fmt.Sprintf("The upload path %q is given twice.", p))
			}
			seen[p] = true
			f, err := fh.Open()
			if err != nil {
				return in, nil, err
			}
			files = append(files, &graphql.Upload{File: f, Filename: p, Size: fh.Size, ContentType: fh.Header.Get("Content-Type")})
		}
	}
	return in, files, nil
}

// discardUpload removes the files the multipart parser wrote for r. The
// server removes those of the request it was given, but handlers see a
// copy (every r.WithContext makes one), so the parsed form is only on
// this r: without this, every upload beyond the in-memory part left its
// files in the temporary directory.
func discardUpload(r *http.Request) {
	if r.MultipartForm != nil {
		_ = r.MultipartForm.RemoveAll()
	}
}

// uploadPath recovers the full upload path (Go's multipart reader keeps
// only the base name) and checks it stays inside the source.
func uploadPath(disposition, fallback string) (string, error) {
	p := fallback
	if _, params, err := mime.ParseMediaType(disposition); err == nil && params["filename"] != "" {
		p = params["filename"]
	}
	p = strings.ReplaceAll(p, "\\", "/")
	clean := path.Clean("/" + p)[1:]
	if clean == "" || clean != strings.TrimPrefix(p, "./") || strings.HasPrefix(p, "/") {
		return "", fmt.Errorf("the upload path %q must be relative and stay inside the source", p)
	}
	return clean, nil
}
