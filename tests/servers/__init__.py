"""Real servers the test suite shares, started as processes on loopback: PostgreSQL, Kafka, Kafka Connect with Debezium."""
