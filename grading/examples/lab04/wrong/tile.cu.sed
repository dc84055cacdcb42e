# v6 as the reference has it
