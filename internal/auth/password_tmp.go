package auth

import "golang.org/x/crypto/bcrypt"

// HashPassword is a placeholder until the argon2id implementation lands (merge removes this file).
func HashPassword(pw string) (string, error) {
	b, err := bcrypt.GenerateFromPassword([]byte(pw), 4)
	return string(b), err
}
