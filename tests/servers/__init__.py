"""Real servers the test suite shares, started as processes on loopback (one of each per session, on first use).

Fixtures (tests/servers/fixtures.py, registered for all tests by tests/conftest.py):
* `postgres_server` -> PostgresServer: PostgreSQL 15 with wal_level=logical; host, port, superuser, password,
  dsn()/sqlalchemy_url()/jdbc_url() per database, create_database(); `postgres_database`: a new database per test.
* `kafka_broker` -> KafkaBroker: one KRaft broker; bootstrap_servers. Topic helpers in tests/servers/kafka_client.py.
* `kafka_connect` -> KafkaConnect: a standalone worker with Debezium's PostgreSQL connector and default converters.
* `debezium_postgres` -> register(database, tables, schemas_enable=True, extra=None): a PostgresConnector whose
  snapshot is done; its topics are `connector.topic("table")`; deleted with its replication slot after the test.

The jars come from `make test-deps` (include/jvm/kafka/pom.xml -> build/kafka); PostgreSQL from Debian's package.
"""
