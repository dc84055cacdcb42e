"""Mechanisms under everything: no-link file operations, safe text, option words, say.

These import nothing of the grader but each other.
"""
