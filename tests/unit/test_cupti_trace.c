/* test_cupti_trace.c - unit tests of common/cupti_lines.c (the plain C part of the records):
 * records as the kit's tab-separated lines and back, kernel names, and the
 * busy time of each engine, fed with synthetic records (no GPU, no CUPTI). */
#define _POSIX_C_SOURCE 200809L /* open_memstream */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#define KIT_TRACE_NO_CUPTI
#include "cupti_lines.c"
#include "cupti_trace.c"

static kit_trace_rec kernel(unsigned long long s, unsigned long long e, unsigned stream,
                            const char *name)
{
    kit_trace_rec r = {0};
    r.type = 'K';
    r.start = s;
    r.end = e;
    r.stream = stream;
    snprintf(r.name, sizeof r.name, "%s", name);
    return r;
}

static kit_trace_rec copy(unsigned long long s, unsigned long long e, unsigned stream,
                          unsigned long long bytes, kit_copy_kind k)
{
    kit_trace_rec r = {0};
    r.type = 'C';
    r.start = s;
    r.end = e;
    r.stream = stream;
    r.bytes = bytes;
    r.kind = k;
    return r;
}

static void test_format_lines(void **state)
{
    (void)state;
    char buf[256];
    kit_trace_rec k = kernel(1000, 2500, 7, "strip_rows_kernel");
    int n = kit_trace_format(&k, buf, sizeof buf);
    assert_int_equal(n, (int)strlen(buf));
    assert_string_equal(buf, "K\t1000\t2500\t7\t0\t-\tstrip_rows_kernel\t0+0\n");
    k.smem_static = 4352;
    k.smem_dynamic = 96;
    kit_trace_format(&k, buf, sizeof buf);
    assert_string_equal(buf, "K\t1000\t2500\t7\t0\t-\tstrip_rows_kernel\t4352+96\n");
    kit_trace_rec c = copy(3000, 9000, 13, 1048576, KIT_COPY_DTOH);
    c.src = KIT_MEM_DEVICE;
    c.dst = KIT_MEM_PAGEABLE;
    kit_trace_format(&c, buf, sizeof buf);
    assert_string_equal(buf, "C\t3000\t9000\t13\t1048576\tDtoH\t-\tdevice>pageable\n");
    c.kind = KIT_COPY_HTOD;
    c.src = KIT_MEM_PINNED;
    c.dst = KIT_MEM_DEVICE;
    kit_trace_format(&c, buf, sizeof buf);
    assert_string_equal(buf, "C\t3000\t9000\t13\t1048576\tHtoD\t-\tpinned>device\n");
    /* memory taken and given back */
    kit_trace_rec m = {.type = 'M', .start = 77, .end = 77, .bytes = 4096, .src = KIT_MEM_MANAGED,
                       .address = 0x7f00abc000ULL};
    kit_trace_format(&m, buf, sizeof buf);
    assert_string_equal(buf, "M\t77\t77\t0\t4096\tmanaged\talloc\t0x7f00abc000\n");
    m.freed = 1;
    m.src = KIT_MEM_DEVICE;
    kit_trace_format(&m, buf, sizeof buf);
    assert_string_equal(buf, "M\t77\t77\t0\t4096\tdevice\tfree\t0x7f00abc000\n");
    /* a buffer too small is refused, not cut */
    assert_int_equal(kit_trace_format(&c, buf, 10), -1);
    /* a kernel with no name still gives a well-formed line */
    kit_trace_rec anon = kernel(1, 2, 0, "");
    kit_trace_format(&anon, buf, sizeof buf);
    assert_string_equal(buf, "K\t1\t2\t0\t0\t-\t?\t0+0\n");
}

static void test_parse_round_trip(void **state)
{
    (void)state;
    kit_trace_rec in[] = {kernel(5, 50, 1, "batch_kernel"), copy(60, 600, 2, 921600, KIT_COPY_HTOD),
                          copy(70, 71, 3, 8, KIT_COPY_DTOD), copy(80, 81, 0, 1, KIT_COPY_OTHER),
                          copy(90, 95, 4, 2, KIT_COPY_PTOP), copy(90, 95, 4, 2, KIT_COPY_HTOH),
                          {.type = 'M', .start = 9, .end = 9, .bytes = 1 << 20, .src = KIT_MEM_DEVICE,
                           .address = 0xdeadbeef000ULL},
                          {.type = 'M', .start = 99, .end = 99, .bytes = 64, .src = KIT_MEM_STATIC,
                           .freed = 1, .address = 0x10ULL}};
    in[0].smem_static = 12;
    in[0].smem_dynamic = 4096;
    in[1].src = KIT_MEM_PAGEABLE;
    in[1].dst = KIT_MEM_DEVICE;
    in[3].src = KIT_MEM_MANAGED_STATIC;
    in[3].dst = KIT_MEM_ARRAY;
    for (size_t i = 0; i < sizeof in / sizeof in[0]; i++) {
        char buf[256];
        kit_trace_rec out;
        assert_true(kit_trace_format(&in[i], buf, sizeof buf) > 0);
        assert_int_equal(kit_trace_parse(buf, &out), 1);
        assert_int_equal(out.type, in[i].type);
        assert_true(out.start == in[i].start && out.end == in[i].end);
        assert_int_equal(out.stream, in[i].stream);
        assert_true(out.bytes == in[i].bytes);
        assert_int_equal(out.src, in[i].src);
        if (in[i].type == 'C') {
            assert_int_equal(out.kind, in[i].kind);
            assert_int_equal(out.dst, in[i].dst);
        } else if (in[i].type == 'K') {
            assert_string_equal(out.name, in[i].name);
            assert_int_equal(out.smem_static, in[i].smem_static);
            assert_int_equal(out.smem_dynamic, in[i].smem_dynamic);
        } else {
            assert_int_equal(out.freed, in[i].freed);
            assert_true(out.address == in[i].address);
        }
    }
    /* version 2's lines (no last column) still read, with nothing known of the memories */
    kit_trace_rec v2;
    assert_int_equal(kit_trace_parse("C\t1\t2\t1\t8\tHtoD\t-\n", &v2), 1);
    assert_int_equal(v2.src, KIT_MEM_UNKNOWN);
    assert_int_equal(kit_trace_parse("K\t1\t2\t1\t0\t-\tk\n", &v2), 1);
    assert_int_equal(v2.smem_static + v2.smem_dynamic, 0);
}

static void test_parse_rejects(void **state)
{
    (void)state;
    kit_trace_rec r;
    assert_int_equal(kit_trace_parse("# calib 1 2\n", &r), 0);
    assert_int_equal(kit_trace_parse("\n", &r), 0);
    const char *bad[] = {
        "K\t10\t5\t1\t0\t-\tk\n",          /* ends before it starts */
        "X\t1\t2\t1\t0\t-\tk\n",           /* no such type */
        "KK\t1\t2\t1\t0\t-\tk\n",
        "C\t1\t2\t1\t8\tHtoX\t-\n",        /* no such copy kind */
        "C\t1\t2\t1\t8\tHtoD\n",           /* a field short */
        "C\t1\t2\t1\t8\tHtoD\t-\textra\n", /* a field too many */
        "C\t1\t2\t1\t-8\tHtoD\t-\n",       /* not a number */
        "C\t1\t2x\t1\t8\tHtoD\t-\n",
        "K\t1\t2\t1\t5\t-\tk\n",           /* a kernel moves no bytes */
        "K\t1\t2\t1\t0\tHtoD\tk\n",
        "K\t1\t2\t1\t0\t-\t\n",            /* a kernel has a name */
        "C\t1\t2\t1\t8\tHtoD\tname\n",     /* a copy has none */
        "C\t1\t2\t4294967296\t8\tHtoD\t-\n", /* stream beyond 32 bits */
        "C\t1\t2\t1\t8\tHtoD\t-\tpinned>device\tx\n", /* nine fields */
        "C\t1\t2\t1\t8\tHtoD\t-\tpinned\n",          /* SRC>DST */
        "C\t1\t2\t1\t8\tHtoD\t-\tpinned>gpu\n",      /* no such memory */
        "K\t1\t2\t1\t0\t-\tk\t12\n",                  /* STATIC+DYNAMIC */
        "K\t1\t2\t1\t0\t-\tk\t12+x\n",
        "K\t1\t2\t1\t0\t-\tk\t4294967296+0\n",
        "M\t5\t5\t0\t8\tdevice\talloc\n",              /* M has eight fields */
        "M\t5\t6\t0\t8\tdevice\talloc\t0x10\n",       /* at one time */
        "M\t5\t5\t0\t8\tdevice\ttake\t0x10\n",        /* alloc or free */
        "M\t5\t5\t0\t8\tgpu\talloc\t0x10\n",
        "M\t5\t5\t0\t8\tdevice\talloc\t16\n",         /* hex */
        "M\t5\t5\t0\t8\tdevice\talloc\t0x1g\n",
        "M\t5\t5\t3\t8\tdevice\talloc\t0x10\n",       /* no stream */
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        if (kit_trace_parse(bad[i], &r) != -1)
            fail_msg("accepted: %s", bad[i]);
}

static void test_clean_name(void **state)
{
    (void)state;
    char out[KIT_TRACE_NAME];
    kit_trace_clean_name("_Z17strip_rows_kernelPKdPdiii", out, sizeof out);
    assert_string_equal(out, "strip_rows_kernel");
    kit_trace_clean_name("plain_c_kernel", out, sizeof out);
    assert_string_equal(out, "plain_c_kernel");
    /* a length longer than what follows: kept as it is */
    kit_trace_clean_name("_Z99short", out, sizeof out);
    assert_string_equal(out, "_Z99short");
    kit_trace_clean_name("void k<int>(int)\twith\ttabs\n", out, sizeof out);
    assert_null(strchr(out, '\t'));
    assert_null(strchr(out, '\n'));
    kit_trace_clean_name(NULL, out, sizeof out);
    assert_string_equal(out, "?");
    char small[6];
    kit_trace_clean_name("_Z12batch_kernelPKhPhiii", small, sizeof small);
    assert_string_equal(small, "batch");
}

/* Two streams: the copies in overlap the kernels; two kernels overlap each
 * other and must count once; a record before t0 is not part of the run. */
static void test_busy_union_and_window(void **state)
{
    (void)state;
    const unsigned long long ms = 1000000ULL, t0 = 100 * ms;
    kit_trace_rec r[] = {
        kernel(50 * ms, 60 * ms, 9, "before_the_run"),
        copy(100 * ms, 110 * ms, 1, 1000, KIT_COPY_HTOD),
        copy(110 * ms, 120 * ms, 2, 1000, KIT_COPY_HTOD),
        kernel(110 * ms, 118 * ms, 1, "k"),
        kernel(115 * ms, 125 * ms, 2, "k"), /* overlaps the one above: 110..125 once */
        copy(118 * ms, 128 * ms, 1, 500, KIT_COPY_DTOH),
        copy(125 * ms, 135 * ms, 2, 500, KIT_COPY_DTOH),
        copy(126 * ms, 127 * ms, 2, 64, KIT_COPY_DTOD), /* on no engine of the three */
    };
    kit_trace_busy b;
    kit_trace_busy_of(r, sizeof r / sizeof r[0], t0, 0, &b);
    assert_true(b.span_ms == 35.0);
    assert_true(b.htod_ms == 20.0);
    assert_true(b.kernel_ms == 15.0);
    assert_true(b.dtoh_ms == 17.0); /* 118..135 */
    assert_true(b.busiest_ms == 20.0);
    assert_true(b.overlap == 35.0 / 20.0);
    assert_true(b.htod_bytes == 2000 && b.dtoh_bytes == 1000);
    assert_int_equal(b.kernels, 2);
    assert_int_equal(b.copies, 5);
    assert_int_equal(b.streams, 2);
    /* with t0 at 0 the early kernel counts, and a third stream */
    kit_trace_busy_of(r, sizeof r / sizeof r[0], 0, 0, &b);
    assert_int_equal(b.kernels, 3);
    assert_int_equal(b.streams, 3);
    assert_true(b.kernel_ms == 25.0);
    /* nothing recorded: all zero, no division by zero */
    /* an end bound: only the early kernel starts in [0, 99 ms] */
    kit_trace_busy_of(r, sizeof r / sizeof r[0], 0, 99 * ms, &b);
    assert_int_equal(b.kernels, 1);
    assert_int_equal(b.copies, 0);
    assert_true(b.kernel_ms == 10.0 && b.span_ms == 60.0);
    kit_trace_busy_of(NULL, 0, t0, 0, &b);
    assert_true(b.span_ms == 0.0 && b.busiest_ms == 0.0 && b.overlap == 0.0);
    assert_int_equal(b.streams, 0);
}

/* Serial work (one stream, nothing overlaps): span / busiest is the sum of
 * the three engines over the largest. */
static void test_busy_serial(void **state)
{
    (void)state;
    kit_trace_rec r[] = {copy(0, 40, 7, 10, KIT_COPY_HTOD), kernel(40, 60, 7, "k"),
                         copy(60, 100, 7, 10, KIT_COPY_DTOH)};
    kit_trace_busy b;
    kit_trace_busy_of(r, 3, 0, 0, &b);
    assert_true(b.busiest_ms == 40e-6);
    /* memory taken is no engine's work: the same figures with an M record among them */
    kit_trace_rec m[] = {r[0], {.type = 'M', .start = 50, .end = 50, .bytes = 1 << 30}, r[1], r[2]};
    kit_trace_busy bm;
    kit_trace_busy_of(m, 4, 0, 0, &bm);
    assert_true(bm.span_ms == b.span_ms && bm.busiest_ms == b.busiest_ms);
    assert_int_equal(bm.kernels + bm.copies, 3);
    assert_true(b.overlap > 2.4999 && b.overlap < 2.5001);
    assert_int_equal(b.streams, 1);
}

static void test_write_whole_file(void **state)
{
    (void)state;
    kit_trace_rec r[] = {kernel(10, 20, 3, "k1"), copy(20, 30, 3, 16, KIT_COPY_DTOH),
                         copy(25, 35, 4, 16, KIT_COPY_HTOD),
                         {.type = 'M', .start = 5, .end = 5, .bytes = 32, .src = KIT_MEM_DEVICE}};
    char *text = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&text, &len);
    assert_non_null(fp);
    assert_int_equal(kit_trace_write(fp, r, 4, 111, 222, 0), 0);
    fclose(fp);
    assert_true(strncmp(text, "# kitcupti 3\n# calib 111 222\n", 29) == 0);
    const char *end = "# end kernels=1 copies=2 memory=1 dropped=0\n";
    /* the end line is the last one */
    assert_true(len > 0 && strcmp(text + len - strlen(end), end) == 0);
    /* every other line parses back */
    int records = 0, comments = 0;
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        kit_trace_rec x;
        int p = kit_trace_parse(line, &x);
        assert_true(p >= 0);
        records += p == 1;
        comments += p == 0;
    }
    assert_int_equal(records, 4);
    assert_int_equal(comments, 4);
    free(text);
}

static void test_kind_names(void **state)
{
    (void)state;
    for (int k = KIT_COPY_OTHER; k <= KIT_COPY_PTOP; k++)
        assert_int_equal(kit_trace_kind_parse(kit_trace_kind_name((kit_copy_kind)k)), k);
    for (int k = KIT_MEM_UNKNOWN; k <= KIT_MEM_MANAGED_STATIC; k++)
        assert_int_equal(kit_trace_mem_parse(kit_trace_mem_name((kit_mem_kind)k)), k);
    assert_int_equal(kit_trace_mem_parse("gpu"), -1);
    assert_string_equal(kit_trace_kind_name((kit_copy_kind)42), "other");
    assert_int_equal(kit_trace_kind_parse("htod"), KIT_COPY_OTHER); /* names are exact */
}

/* Without CUPTI the in-process interface says so and hands over nothing. */
static void test_no_cupti(void **state)
{
    (void)state;
    char err[128] = "";
    assert_int_equal(kit_trace_start(err, sizeof err), -1);
    assert_non_null(strstr(err, "CUPTI"));
    kit_trace_rec *recs = (kit_trace_rec *)1;
    size_t n = 9, dropped = 9;
    assert_int_equal(kit_trace_collect(&recs, &n, &dropped), -1);
    assert_null(recs);
    assert_int_equal(n, 0);
    unsigned long long a = kit_trace_now(), b = kit_trace_now();
    assert_true(a > 0 && b >= a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_format_lines),        cmocka_unit_test(test_parse_round_trip),
        cmocka_unit_test(test_parse_rejects),       cmocka_unit_test(test_clean_name),
        cmocka_unit_test(test_busy_union_and_window), cmocka_unit_test(test_busy_serial),
        cmocka_unit_test(test_write_whole_file),    cmocka_unit_test(test_kind_names),
        cmocka_unit_test(test_no_cupti),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
