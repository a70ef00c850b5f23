-- The e2e model over the e2e model's table, which lakeops' own ETL writes: the amounts of each day's orders.
SELECT date_trunc('day', created_at) AS day, sum(amount) AS amount, count(1) AS orders FROM copies GROUP BY 1
