"""Scoring and reports: points, status and reason, the record, report.md, grades.csv and summary.md, the workflow's lines in them."""
