#!/bin/sh
# Run once by the postgis image when db's volume is first initialised (docker-entrypoint-initdb.d): lets the
# compose network make replication connections as the database owner, with its password, for db-replica
# (docker-compose.yml profile scale). A volume initialised before this script existed needs the line added by hand.
set -e
echo "host replication ${POSTGRES_USER} all scram-sha-256" >>"$PGDATA/pg_hba.conf"
