-- Create "oidc_logins" table
CREATE TABLE `oidc_logins` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `state_hash` text NOT NULL, `binding_hash` text NOT NULL, `provider` text NOT NULL, `nonce` text NOT NULL, `code_verifier` text NOT NULL, `redirect_uri` text NOT NULL, `next` text NOT NULL DEFAULT ('/'), `created_at` datetime NOT NULL, `expires_at` datetime NOT NULL);
-- Create index "oidc_logins_state_hash_key" to table: "oidc_logins"
CREATE UNIQUE INDEX `oidc_logins_state_hash_key` ON `oidc_logins` (`state_hash`);
-- Create index "oidclogin_expires_at" to table: "oidc_logins"
CREATE INDEX `oidclogin_expires_at` ON `oidc_logins` (`expires_at`);
-- Create "user_identities" table
CREATE TABLE `user_identities` (`id` integer NOT NULL PRIMARY KEY AUTOINCREMENT, `provider` text NOT NULL, `subject` text NOT NULL, `email` text NOT NULL DEFAULT (''), `granted_groups` json NULL, `created_at` datetime NOT NULL, `last_sign_in_at` datetime NOT NULL, `user_id` integer NOT NULL, CONSTRAINT `user_identities_users_user` FOREIGN KEY (`user_id`) REFERENCES `users` (`id`) ON DELETE CASCADE);
-- Create index "useridentity_provider_subject" to table: "user_identities"
CREATE UNIQUE INDEX `useridentity_provider_subject` ON `user_identities` (`provider`, `subject`);
-- Create index "useridentity_user_id" to table: "user_identities"
CREATE INDEX `useridentity_user_id` ON `user_identities` (`user_id`);
