"""Grading on a Slurm cluster: options, submission, array tasks, claims, merge, --status.

The login node submits a round (slurmmain, slurm); each array task grades its share
through the local driver (shard, claims); the merge job writes the class's outputs.
"""
