package smbsource

import (
	"errors"
	"net"
	"net/url"
	"strconv"
	"strings"
)

// DefaultPort is SMB's port.
const DefaultPort = "445"

// Location is a folder on a file share.
type Location struct {
	// Addr is host:port.
	Addr  string
	Share string
	// Dir is the folder within the share, slash separated, "" for its
	// root.
	Dir string
}

// ParseURL reads cifs://host[:port]/share/optional/folder. A URL it cannot
// read gives a message saying why.
func ParseURL(raw string) (Location, string) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || !strings.EqualFold(u.Scheme, "cifs") || u.Hostname() == "" {
		return Location{}, "Enter a file-share URL such as cifs://server/share/folder."
	}
	if u.User != nil {
		return Location{}, "The URL must not contain credentials: give them as options.username and options.password."
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return Location{}, "A file-share URL has no query or fragment: cifs://server/share/folder."
	}
	port := u.Port()
	if port == "" {
		port = DefaultPort
	} else if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
		return Location{}, "The port must be a number from 1 to 65535."
	}
	var parts []string
	for _, p := range strings.Split(u.Path, "/") {
		switch p {
		case "", ".":
		case "..":
			return Location{}, "The folder must not contain \"..\"."
		default:
			parts = append(parts, p)
		}
	}
	if len(parts) == 0 {
		return Location{}, "Name the share: cifs://server/share/folder."
	}
	if strings.ContainsAny(strings.Join(parts, "/"), "\\\x00") {
		return Location{}, "Use / to separate folders in a file-share URL."
	}
	return Location{Addr: net.JoinHostPort(u.Hostname(), port), Share: parts[0], Dir: strings.Join(parts[1:], "/")}, ""
}

// CheckURL is remote.URLChecker: what ParseURL finds wrong with u.
func (Kind) CheckURL(u *url.URL) error {
	if _, problem := ParseURL(u.String()); problem != "" {
		return errors.New(problem)
	}
	return nil
}
