"""The class and its workflow: the roster, git submissions at a deadline, the late policy, regrade history, the gradebook export, similarity, and the instructors' options."""
