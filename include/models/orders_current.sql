-- Every current order with its user's current row (null user columns once the user is deleted).
SELECT o.order_id, o.user_id, o.status, o.amount, o.currency, o.created_at, o.updated_at,
       u.email AS user_email, u.name AS user_name, u.country AS user_country, u.tier AS user_tier
FROM orders o
LEFT JOIN users u ON o.user_id = u.user_id
