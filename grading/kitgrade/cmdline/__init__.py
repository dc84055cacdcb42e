"""The command line: the options and --help (cli), and grading/grade's entry that runs the layers below (entry)."""
