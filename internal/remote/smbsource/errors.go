package smbsource

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/hirochachacha/go-smb2"

	"github.com/geopub/geopub/internal/remote"
)

// NTSTATUS codes the messages name.
const (
	statusAccessDenied     = 0xC0000022
	statusNotFound         = 0xC0000034
	statusPathNotFound     = 0xC000003A
	statusLogonFailure     = 0xC000006D
	statusAccountRestrict  = 0xC000006E
	statusPasswordExpired  = 0xC0000071
	statusAccountDisabled  = 0xC0000072
	statusBadNetworkName   = 0xC00000CC
	statusPasswordMustChng = 0xC0000224
	statusAccountLocked    = 0xC0000234
)

// explain turns an SMB error met while doing what into a message for the
// scan log that holds no credential.
func explain(err error, c remote.Conn, what string) error {
	var re *smb2.ResponseError
	if errors.As(err, &re) {
		switch re.Code {
		case statusLogonFailure, statusAccountRestrict, statusPasswordExpired, statusAccountDisabled,
			statusPasswordMustChng, statusAccountLocked:
			return remote.Failed("The file server refused the credentials while %s. Check options.username and options.password.", what)
		case statusAccessDenied:
			return remote.Failed("The file server denied access while %s.", what)
		case statusBadNetworkName:
			return remote.Failed("The share does not exist (while %s).", what)
		case statusNotFound, statusPathNotFound:
			return remote.Failed("The folder does not exist (while %s).", what)
		}
	}
	switch {
	case errors.Is(err, os.ErrNotExist):
		return remote.Failed("The folder does not exist (while %s).", what)
	case errors.Is(err, os.ErrPermission):
		return remote.Failed("The file server denied access while %s.", what)
	}
	return errors.New(scrub(fmt.Sprintf("The file server failed while %s: %v", what, err), c))
}

// scrub removes the source's password from a message.
func scrub(msg string, c remote.Conn) string {
	if c.Password != "" {
		msg = strings.ReplaceAll(msg, c.Password, "***")
	}
	return msg
}
