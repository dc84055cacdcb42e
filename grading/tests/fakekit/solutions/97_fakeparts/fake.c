/* The fake lab in two parts: its reference, every variant right (grading/tests/fakekit). */
/* >>> SOLUTION */
// v1 correct
// v2 correct
// v3 correct
/* <<< SOLUTION */
/* >>> STUDENT
// v1 notimpl
// v2 notimpl
// v3 notimpl
<<< STUDENT */
int fake_variant(int v) { return v; }
