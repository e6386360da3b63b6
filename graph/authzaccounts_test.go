package graph_test

// The account lifecycle's mutations consume the matrix's shared users
// (locking or deleting them, changing their passwords, ending their
// sessions); their authorization runs over REST, through the same
// resolver methods.
func init() {
	for name, where := range map[string]string{
		"lockUser":         "site administrators only: rest/authzaccounts_test.go (POST /users/{uid}/lock) and rest/accounts_test.go TestAccountsLockUnlock",
		"unlockUser":       "site administrators only: rest/authzaccounts_test.go (POST /users/{uid}/unlock) and rest/accounts_test.go TestAccountsLockUnlock",
		"deleteUser":       "site administrators only: rest/authzaccounts_test.go (DELETE /users/{uid}) and rest/accounts_test.go",
		"changePassword":   "the caller's own password: rest/authzaccounts_test.go (PUT /users/me/password) and TestAccountsSessionsAndPassword",
		"endSession":       "the caller's own sessions: rest/authzaccounts_test.go (DELETE /users/me/sessions/{sid}) and TestAccountsSessionsAndPassword",
		"endOtherSessions": "the caller's own sessions: rest/authzaccounts_test.go (POST /users/me/sessions/end-others) and TestAccountsSessionsAndPassword",
	} {
		mutationsElsewhere[name] = where
	}
	// The matrix's roles call with keys and hold no session.
	notReachedByQueries["Query.mySessions"] = "the caller's own sessions; the matrix's roles hold none (rest.TestAccountsSessionsAndPassword reads it)"
}
