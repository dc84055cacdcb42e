"""The driver: the grading's setup, its shared context, the cores and GPUs, the schedule of every student's tasks, the instructors' hooks in it and the class's outputs."""
