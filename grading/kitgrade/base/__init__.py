"""Mechanisms under everything: file operations that follow no link, safe text, the one reader of option words."""
