"""What the table-health page in the Airflow UI shows: figures gathered from metadata, rendered as HTML."""
