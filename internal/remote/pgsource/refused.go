package pgsource

import "syscall"

// syscallRefused is the error of a dial the server's host refused.
var syscallRefused = syscall.ECONNREFUSED
