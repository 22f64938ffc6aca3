-- Who created an API token: change requests treat a token as the person who
-- created it, so that nobody approves their own change through a token.
-- NULL for tokens made at start-up, by a token of unknown origin, or before
-- this column existed. Keep in step with ../sqlite/00005_token_creator.sql.

-- +goose Up
ALTER TABLE api_tokens ADD COLUMN created_by_user_id INTEGER REFERENCES users (id) ON DELETE SET NULL;

-- +goose Down
ALTER TABLE api_tokens DROP COLUMN created_by_user_id;
