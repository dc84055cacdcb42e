# v3's column pass never advances i: it loops for ever (the grader's time limit stops it)
/^int conv_v3(/,/^}/ {
  /column pass/,/^}/ s/for (int i = 0; i < size; i++) {/for (int i = 0; i < size;) {/
}
