"""Scoring and reports: points and status, results.json, report.md, the class's files.

Everything here is made from the students' records, so a resumed grading writes it
whole again.
"""
