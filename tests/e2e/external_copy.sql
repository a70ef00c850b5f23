-- The e2e model over a table another tool writes: its rows as they are.
SELECT id, amount, created_at FROM orders
