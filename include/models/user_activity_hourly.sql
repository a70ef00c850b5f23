-- Per user and hour: events, events by type, distinct sessions, first and last event time.
WITH per_type AS (
  SELECT user_id, date_trunc('hour', event_time) AS hour, event_type,
         count(1) AS n, collect_set(session_id) AS sessions,
         min(event_time) AS first_event_time, max(event_time) AS last_event_time
  FROM events
  GROUP BY user_id, date_trunc('hour', event_time), event_type
)
SELECT user_id, hour,
       CAST(sum(n) AS BIGINT) AS events,
       map_from_entries(array_sort(collect_list(struct(event_type, n)))) AS events_by_type,
       CAST(size(array_distinct(flatten(collect_list(sessions)))) AS BIGINT) AS sessions,
       min(first_event_time) AS first_event_time,
       max(last_event_time) AS last_event_time
FROM per_type
GROUP BY user_id, hour
