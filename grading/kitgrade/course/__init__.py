"""The class: roster, git submissions at a deadline, late policy, history, export, similarity.

The instructors' tools and their options (wfopts); each reads hostile data (a
repository, a roster) and knows nothing of the driver.
"""
