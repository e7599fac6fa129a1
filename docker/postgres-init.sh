#!/bin/sh
# The postgres container runs this once, when it initialises its volume
# (/docker-entrypoint-initdb.d, as POSTGRES_USER in POSTGRES_DB): the two
# roles README "Database roles" describes, so that nothing of the runtime runs
# as the superuser.
#   noetl_owner  owns the schema noetl; only the migration runs as it.
#   noetl_app    every role's DATABASE_URL: data in noetl, never DDL.
# Re-running it changes nothing (the roles are made when missing, their
# passwords set again).
set -eu
psql -v ON_ERROR_STOP=1 --no-psqlrc --quiet --username "$POSTGRES_USER" --dbname "$POSTGRES_DB" \
  -v owner_password="$NOETL_OWNER_PASSWORD" -v app_password="$NOETL_APP_PASSWORD" <<'SQL'
SELECT 'CREATE ROLE noetl_owner' WHERE NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'noetl_owner') \gexec
SELECT 'CREATE ROLE noetl_app' WHERE NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'noetl_app') \gexec
-- Logins with passwords here, also when a migration of another database of
-- the cluster made noetl_app first (NOLOGIN, reached there by SET ROLE).
SELECT format('ALTER ROLE noetl_owner LOGIN PASSWORD %L', :'owner_password') \gexec
SELECT format('ALTER ROLE noetl_app LOGIN PASSWORD %L', :'app_password') \gexec
SET client_min_messages = warning;
CREATE SCHEMA IF NOT EXISTS noetl AUTHORIZATION noetl_owner;
-- The migrations table, public.noetl_migrations, is the owner's too; the
-- first migration's CREATE SCHEMA IF NOT EXISTS asks CREATE on the database.
GRANT CREATE ON SCHEMA public TO noetl_owner;
SELECT format('GRANT CREATE ON DATABASE %I TO noetl_owner', current_database()) \gexec
GRANT USAGE ON SCHEMA noetl TO noetl_app;
-- What the owner's migrations create, the runtime may read and write, and the
-- boot's "anything pending?" check may read the migrations table.
ALTER DEFAULT PRIVILEGES FOR ROLE noetl_owner IN SCHEMA noetl GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO noetl_app;
ALTER DEFAULT PRIVILEGES FOR ROLE noetl_owner IN SCHEMA noetl GRANT USAGE ON SEQUENCES TO noetl_app;
ALTER DEFAULT PRIVILEGES FOR ROLE noetl_owner IN SCHEMA public GRANT SELECT ON TABLES TO noetl_app;
SQL
