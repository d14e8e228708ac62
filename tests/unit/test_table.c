/* Unit tests for src/report/table.c: the model and every formatter. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "vprof/table.h"

/* Writes tables with opts and returns what came out (caller frees). */
static char *render_n(vp_table *const *tables, size_t n, const vp_format_opts *opts)
{
    /* Static so that gcc 12 at -O2 does not take the memstream's buffer
     * for a pointer to a dead local (-Wdangling-pointer). */
    static char *text;
    static size_t len;
    text = NULL;
    len = 0;
    FILE *f = open_memstream(&text, &len);

    assert_non_null(f);
    assert_int_equal(vp_table_write(f, tables, n, opts), 0);
    assert_int_equal(fclose(f), 0);
    return text;
}

static char *render(vp_table *t, vp_format format)
{
    vp_format_opts opts = {format, 0, 0, 0, NULL};

    return render_n(&t, 1, &opts);
}

static void assert_render(vp_table *t, vp_format format, const char *want)
{
    char *got = render(t, format);

    assert_string_equal(got, want);
    free(got);
}

/* The columns and one row of nsys's cuda_gpu_kern_sum. */
static vp_table *kern_sum(void)
{
    vp_table *t = vp_table_new("kernels");
    size_t r;

    vp_table_add_col(t, "Time", VP_COL_PERCENT, 1);
    vp_table_add_col(t, "Total Time", VP_COL_NS, 0);
    vp_table_add_col(t, "Instances", VP_COL_INT, 0);
    vp_table_add_col(t, "Avg", VP_COL_NS_F, 1);
    vp_table_add_col(t, "Med", VP_COL_NS_F, 1);
    vp_table_add_col(t, "Min", VP_COL_NS, 0);
    vp_table_add_col(t, "Max", VP_COL_NS, 0);
    vp_table_add_col(t, "StdDev", VP_COL_NS_F, 1);
    vp_table_add_col(t, "Name", VP_COL_TEXT, 0);
    r = vp_table_add_row(t);
    vp_table_set_double(t, r, 0, 50.0812);
    vp_table_set_int(t, r, 1, 99385786);
    vp_table_set_int(t, r, 2, 32);
    vp_table_set_double(t, r, 3, 99385786 / 32.0);
    vp_table_set_double(t, r, 4, 3041179.0);
    vp_table_set_int(t, r, 5, 2987340);
    vp_table_set_int(t, r, 6, 3777790);
    vp_table_set_double(t, r, 7, 216832.4);
    vp_table_set_text(t, r, 8, "flash_attention_prefill_f16");
    return t;
}

static void test_model(void **state)
{
    vp_table *t = vp_table_new("t");
    size_t r;

    (void)state;
    assert_int_equal(vp_table_add_col(t, "A", VP_COL_INT, 0), 0);
    for (r = 0; r < 1000; r++)
        assert_int_equal(vp_table_add_row(t), r);
    /* A column added late has empty cells in the existing rows. */
    assert_int_equal(vp_table_add_col(t, "B", VP_COL_TEXT, 0), 1);
    vp_table_set_text(t, 999, 1, "last");
    vp_table_set_text(t, 999, 1, "replaced");
    vp_table_set_textn(t, 998, 1, "abcdef", 3);
    vp_table_set_text(t, 997, 1, "gone");
    vp_table_set_int(t, 997, 1, 5);
    assert_int_equal(vp_table_rows(t), 1000);
    assert_int_equal(vp_table_cols(t), 2);
    vp_table_free(t);
    vp_table_free(NULL);
}

static void test_format_parse(void **state)
{
    vp_format f = VP_FMT_TABLE;

    (void)state;
    assert_int_equal(vp_format_parse("csv", &f), 0);
    assert_int_equal(f, VP_FMT_CSV);
    assert_int_equal(vp_format_parse("tsv", &f), 0);
    assert_int_equal(f, VP_FMT_TSV);
    assert_int_equal(vp_format_parse("json", &f), 0);
    assert_int_equal(f, VP_FMT_JSON);
    assert_int_equal(vp_format_parse("md", &f), 0);
    assert_int_equal(f, VP_FMT_MD);
    assert_int_equal(vp_format_parse("table", &f), 0);
    assert_int_equal(f, VP_FMT_TABLE);
    assert_int_equal(vp_format_parse("CSV", &f), -1);
    assert_int_equal(vp_format_parse("", &f), -1);
    assert_int_equal(vp_format_parse(NULL, &f), -1);
}

static void test_csv_nsys(void **state)
{
    vp_table *t = kern_sum();

    (void)state;
    assert_render(t, VP_FMT_CSV,
        "Time (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Name\n"
        "50.1,99385786,32,3105805.8,3041179.0,2987340,3777790,216832.4,flash_attention_prefill_f16\n");
    vp_table_free(t);
}

static void test_csv_quoting(void **state)
{
    vp_table *t = vp_table_new("q");
    size_t r;

    (void)state;
    vp_table_add_col(t, "Name, full", VP_COL_TEXT, 0);
    vp_table_add_col(t, "N", VP_COL_INT, 0);
    r = vp_table_add_row(t);
    vp_table_set_text(t, r, 0, "a,b");
    r = vp_table_add_row(t);
    vp_table_set_text(t, r, 0, "say \"hi\"");
    vp_table_set_int(t, r, 1, -7);
    r = vp_table_add_row(t);
    vp_table_set_text(t, r, 0, "two\nlines");
    r = vp_table_add_row(t);
    vp_table_set_text(t, r, 0, "cr\r");
    r = vp_table_add_row(t);
    vp_table_set_text(t, r, 0, "");
    r = vp_table_add_row(t);
    vp_table_set_text(t, r, 0, "plain 'single' quotes");
    vp_table_set_int(t, r, 1, INT64_MIN);
    assert_render(t, VP_FMT_CSV,
        "\"Name, full\",N\n"
        "\"a,b\",\n"
        "\"say \"\"hi\"\"\",-7\n"
        "\"two\nlines\",\n"
        "\"cr\r\",\n"
        ",\n"
        "plain 'single' quotes,-9223372036854775808\n");
    vp_table_free(t);
}

static void test_csv_numbers(void **state)
{
    vp_table *t = vp_table_new("n");
    char *got, *line;
    size_t r;

    (void)state;
    vp_table_add_col(t, "Avg", VP_COL_NS_F, 1);
    vp_table_add_col(t, "Bytes", VP_COL_BYTES, 0);
    vp_table_add_col(t, "Ratio", VP_COL_RATIO, 3);
    vp_table_add_col(t, "Label", VP_COL_TEXT, 0);
    r = vp_table_add_row(t);
    vp_table_set_double(t, r, 0, -0.0);
    vp_table_set_double(t, r, 1, 1536.6);     /* a double in an int column */
    vp_table_set_double(t, r, 2, -0.0004);    /* rounds to -0.000 */
    vp_table_set_int(t, r, 3, 12);            /* a number in a text column */
    r = vp_table_add_row(t);
    vp_table_set_double(t, r, 0, NAN);
    vp_table_set_double(t, r, 1, INFINITY);
    vp_table_set_double(t, r, 2, -INFINITY);
    vp_table_set_double(t, r, 3, 0.1);
    r = vp_table_add_row(t);
    vp_table_set_int(t, r, 0, 5);             /* an int in a double column */
    vp_table_set_double(t, r, 1, 1e30);       /* out of int64 range */
    vp_table_set_double(t, r, 2, 2.0 / 3.0);
    vp_table_set_double(t, r, 3, NAN);
    assert_render(t, VP_FMT_CSV,
        "Avg (ns),Bytes (B),Ratio,Label\n"
        "0.0,1537,0.000,12\n"
        ",,,0.1\n"
        "5.0,,0.667,\n");

    /* The largest doubles print in full, not cut short. */
    r = vp_table_add_row(t);
    vp_table_set_double(t, r, 0, -1e300);
    got = render(t, VP_FMT_CSV);
    line = strrchr(got, '\n');
    *line = '\0';
    line = strrchr(got, '\n') + 1;
    assert_int_equal(strlen(line), 1 + 301 + 2 + 3);
    assert_memory_equal(line, "-1000000000000000052504760255204420248704", 41);
    assert_string_equal(line + 1 + 301, ".0,,,");
    free(got);
    vp_table_free(t);
}

static void test_tsv(void **state)
{
    vp_table *t = kern_sum();
    size_t r = vp_table_add_row(t);

    (void)state;
    vp_table_set_text(t, r, 8, "tab\there, new\nline \"q\"");
    assert_render(t, VP_FMT_TSV,
        "Time (%)\tTotal Time (ns)\tInstances\tAvg (ns)\tMed (ns)\tMin (ns)\tMax (ns)\tStdDev (ns)\tName\n"
        "50.1\t99385786\t32\t3105805.8\t3041179.0\t2987340\t3777790\t216832.4\tflash_attention_prefill_f16\n"
        "\t\t\t\t\t\t\t\ttab here, new line \"q\"\n");
    vp_table_free(t);
}

static void test_csv_several(void **state)
{
    vp_table *t[2];
    vp_format_opts opts = {VP_FMT_CSV, 0, 0, 0, NULL};
    char *got;

    (void)state;
    t[0] = vp_table_new("a");
    vp_table_add_col(t[0], "A", VP_COL_INT, 0);
    vp_table_set_int(t[0], vp_table_add_row(t[0]), 0, 1);
    t[1] = vp_table_new("b");
    vp_table_add_col(t[1], "B", VP_COL_PERCENT, 2);
    vp_table_set_double(t[1], vp_table_add_row(t[1]), 0, 12.345678);
    vp_table_add_note(t[1], "notes are not data");
    got = render_n(t, 2, &opts);
    assert_string_equal(got, "A\n1\n\nB (%)\n12.35\n");
    free(got);
    vp_table_free(t[0]);
    vp_table_free(t[1]);
}

static void test_json(void **state)
{
    vp_table *t = kern_sum();
    vp_format_opts opts = {VP_FMT_JSON, 0, 0, 0, "vprof.kernels/1"};
    size_t r = vp_table_add_row(t);
    char *got;

    (void)state;
    vp_table_set_double(t, r, 0, NAN);
    vp_table_set_double(t, r, 1, 12.7);
    vp_table_set_int(t, r, 3, 7);
    vp_table_set_double(t, r, 4, -0.0);
    vp_table_set_double(t, r, 7, 0.1);
    vp_table_add_note(t, "%d kernel events without dur were skipped", 3);
    got = render_n(&t, 1, &opts);
    assert_string_equal(got,
        "{\"schema\":\"vprof.kernels/1\",\"tables\":{\"kernels\":{\"columns\":["
        "{\"name\":\"Time (%)\",\"type\":\"percent\"},"
        "{\"name\":\"Total Time (ns)\",\"type\":\"ns\"},"
        "{\"name\":\"Instances\",\"type\":\"int\"},"
        "{\"name\":\"Avg (ns)\",\"type\":\"ns\"},"
        "{\"name\":\"Med (ns)\",\"type\":\"ns\"},"
        "{\"name\":\"Min (ns)\",\"type\":\"ns\"},"
        "{\"name\":\"Max (ns)\",\"type\":\"ns\"},"
        "{\"name\":\"StdDev (ns)\",\"type\":\"ns\"},"
        "{\"name\":\"Name\",\"type\":\"text\"}],"
        "\"rows\":["
        "[50.0812,99385786,32,3105805.8125,3041179,2987340,3777790,216832.4,\"flash_attention_prefill_f16\"],"
        "[null,13,null,7,0,null,null,0.1,null]],"
        "\"notes\":[\"3 kernel events without dur were skipped\"]}}}\n");
    free(got);
    vp_table_free(t);
}

static void test_json_escaping(void **state)
{
    vp_table *t = vp_table_new("we\"ird");
    vp_format_opts opts = {VP_FMT_JSON, 0, 0, 0, NULL};
    size_t r;
    char *got;

    (void)state;
    vp_table_add_col(t, "Name", VP_COL_TEXT, 0);
    vp_table_add_col(t, "R", VP_COL_RATIO, 0);
    r = vp_table_add_row(t);
    vp_table_set_text(t, r, 0, "q\"b\\s/\b\f\n\r\t\x01\x1f\x7f");
    vp_table_set_double(t, r, 1, INFINITY);
    r = vp_table_add_row(t);
    /* Valid: é, €, U+1F600.  Invalid: a lone continuation byte, an
     * overlong '/', a surrogate, a cut-short sequence at the end. */
    vp_table_set_text(t, r, 0, "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80|\x80|\xc0\xaf|\xed\xa0\x80|\xe2\x82");
    vp_table_set_double(t, r, 1, 1e-7);
    got = render_n(&t, 1, &opts);
    assert_string_equal(got,
        "{\"tables\":{\"we\\\"ird\":{\"columns\":[{\"name\":\"Name\",\"type\":\"text\"},"
        "{\"name\":\"R\",\"type\":\"ratio\"}],\"rows\":["
        "[\"q\\\"b\\\\s/\\b\\f\\n\\r\\t\\u0001\\u001f\x7f\",null],"
        "[\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80|\xef\xbf\xbd|\xef\xbf\xbd\xef\xbf\xbd|"
        "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd|\xef\xbf\xbd\xef\xbf\xbd\",1e-07]],"
        "\"notes\":[]}}}\n");
    free(got);
    vp_table_free(t);
}

static void test_json_empty(void **state)
{
    vp_format_opts opts = {VP_FMT_JSON, 0, 0, 0, "s/1"};
    char *got = render_n(NULL, 0, &opts);

    (void)state;
    assert_string_equal(got, "{\"schema\":\"s/1\",\"tables\":{}}\n");
    free(got);
}

static void check_ns(double ns, const char *want)
{
    char buf[32];

    vp_human_ns(buf, sizeof(buf), ns);
    assert_string_equal(buf, want);
}

static void check_bytes(double b, const char *want)
{
    char buf[32];

    vp_human_bytes(buf, sizeof(buf), b);
    assert_string_equal(buf, want);
}

static void test_human_ns(void **state)
{
    (void)state;
    check_ns(0, "0 ns");
    check_ns(-0.0, "0 ns");
    check_ns(-0.3, "0 ns");
    check_ns(0.4, "0 ns");
    check_ns(999, "999 ns");
    check_ns(999.4, "999 ns");
    check_ns(999.5, "1.00 us");
    check_ns(1000, "1.00 us");
    check_ns(1234, "1.23 us");
    check_ns(9994, "9.99 us");
    check_ns(9996, "10.0 us");
    check_ns(12345, "12.3 us");
    check_ns(99949, "99.9 us");
    check_ns(99950, "100 us");
    check_ns(123456, "123 us");
    check_ns(999400, "999 us");
    check_ns(999500, "1.00 ms");
    check_ns(1234567, "1.23 ms");
    check_ns(12345678, "12.3 ms");
    check_ns(1234567890, "1.23 s");
    check_ns(999.5e9, "1000 s");
    check_ns(12345e9, "12345 s");
    check_ns(-1500, "-1.50 us");
    check_ns(NAN, "-");
    check_ns(INFINITY, "-");
}

static void test_human_bytes(void **state)
{
    (void)state;
    check_bytes(0, "0 B");
    check_bytes(1023, "1023 B");
    check_bytes(1023.5, "1.00 KiB");
    check_bytes(1024, "1.00 KiB");
    check_bytes(1536, "1.50 KiB");
    check_bytes(1000 * 1024.0, "1000 KiB");
    check_bytes(1024 * 1024.0, "1.00 MiB");
    check_bytes(4.5 * 1024 * 1024 * 1024, "4.50 GiB");
    check_bytes(80.0 * 1024 * 1024 * 1024, "80.0 GiB");
    check_bytes(3.0 * 1024 * 1024 * 1024 * 1024, "3.00 TiB");
    check_bytes(2048.0 * 1024 * 1024 * 1024 * 1024, "2048 TiB");
    check_bytes(-2048, "-2.00 KiB");
}

static void test_human_table(void **state)
{
    vp_table *t = kern_sum();
    size_t r = vp_table_add_row(t);

    (void)state;
    vp_table_set_double(t, r, 0, 0.04);
    vp_table_set_int(t, r, 1, 999);
    vp_table_set_int(t, r, 2, 1234567);
    vp_table_set_double(t, r, 3, NAN);
    vp_table_set_text(t, r, 8, "tab\there");
    vp_table_add_note(t, "1 event skipped");
    assert_render(t, VP_FMT_TABLE,
        " Time  Total Time  Instances      Avg      Med      Min      Max  StdDev  Name\n"
        "-----  ----------  ---------  -------  -------  -------  -------  ------  ---------------------------\n"
        "50.1%     99.4 ms         32  3.11 ms  3.04 ms  2.99 ms  3.78 ms  217 us  flash_attention_prefill_f16\n"
        " 0.0%      999 ns  1,234,567        -        -        -        -       -  tab here\n"
        "note: 1 event skipped\n");
    vp_table_free(t);
}

/* Ratios keep 3 significant digits below 1000 and never turn into an
 * exponent above it (a B200's 2250 TFLOP/s, not "2.25e+03"). */
static void test_human_ratio(void **state)
{
    (void)state;
    vp_table *t = vp_table_new("r");
    vp_table_add_col(t, "Peak", VP_COL_RATIO, 3);
    double v[] = {0.5, 989.4, 2250, -1310.4, 123456.7};
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
        vp_table_set_double(t, vp_table_add_row(t), 0, v[i]);
    assert_render(t, VP_FMT_TABLE,
        "  Peak\n"
        "------\n"
        "   0.5\n"
        "   989\n"
        "  2250\n"
        " -1310\n"
        "123457\n");
    vp_table_free(t);
}

/* A VP_COL_CLOCK column prints in csv and json only; the human formats
 * leave it out and keep the columns around it. */
static void test_clock_machine_only(void **state)
{
    (void)state;
    vp_table *t = vp_table_new("peak");
    vp_table_add_col(t, "Event", VP_COL_INT, 0);
    vp_table_add_col(t, "Time (us since epoch)", VP_COL_CLOCK, 0);
    vp_table_add_col(t, "Since Start", VP_COL_NS, 0);
    size_t r = vp_table_add_row(t);
    vp_table_set_int(t, r, 0, 52);
    vp_table_set_int(t, r, 1, INT64_C(1772688692983308));
    vp_table_set_int(t, r, 2, INT64_C(951991000));
    assert_render(t, VP_FMT_CSV,
        "Event,Time (us since epoch),Since Start (ns)\n"
        "52,1772688692983308,951991000\n");
    assert_render(t, VP_FMT_TABLE,
        "Event  Since Start\n"
        "-----  -----------\n"
        "   52       952 ms\n");
    assert_render(t, VP_FMT_MD,
        "| Event | Since Start |\n"
        "| ---: | ---: |\n"
        "| 52 | 952 ms |\n");
    char *json = render(t, VP_FMT_JSON);
    assert_non_null(strstr(json, "{\"name\":\"Time (us since epoch)\",\"type\":\"int\"}"));
    assert_non_null(strstr(json, "[52,1772688692983308,951991000]"));
    free(json);
    vp_table_free(t);
}

/* An empty text cell (set, but "") renders in every human format. */
static void test_empty_text_cell(void **state)
{
    (void)state;
    vp_table *t = vp_table_new("e");
    vp_table_add_col(t, "A", VP_COL_TEXT, 0);
    vp_table_add_col(t, "B", VP_COL_INT, 0);
    size_t r = vp_table_add_row(t);
    vp_table_set_text(t, r, 0, "");
    vp_table_set_int(t, r, 1, 7);
    assert_render(t, VP_FMT_MD, "| A | B |\n| --- | ---: |\n|  | 7 |\n");
    assert_render(t, VP_FMT_TABLE, "A  B\n-  -\n   7\n");
    vp_table_free(t);
}

static void test_human_several_color(void **state)
{
    vp_table *t[2];
    vp_format_opts opts = {VP_FMT_TABLE, 0, 0, 1, NULL};
    char *got;
    size_t r;

    (void)state;
    t[0] = vp_table_new("summary");
    vp_table_add_col(t[0], "Name", VP_COL_TEXT, 0);
    vp_table_add_col(t[0], "Peak", VP_COL_BYTES, 0);
    r = vp_table_add_row(t[0]);
    vp_table_set_text(t[0], r, 0, "a");
    vp_table_set_int(t[0], r, 1, 3 << 20);
    t[1] = vp_table_new("empty");
    vp_table_add_col(t[1], "Ratio", VP_COL_RATIO, 0);
    got = render_n(t, 2, &opts);
    assert_string_equal(got,
        "== summary ==\n"
        "\033[1mName      Peak\033[0m\n"
        "----  --------\n"
        "a     3.00 MiB\n"
        "\n"
        "== empty ==\n"
        "\033[1mRatio\033[0m\n"
        "-----\n");
    free(got);
    vp_table_free(t[0]);
    vp_table_free(t[1]);
}

static const char long_name[] =
    "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, "
    "at::detail::Array<char*, 1> >(int, at::native::FillFunctor<float>, "
    "at::detail::Array<char*, 1>)";

static vp_table *names_table(void)
{
    vp_table *t = vp_table_new("kernels");
    size_t r;

    vp_table_add_col(t, "Total", VP_COL_NS, 0);
    vp_table_add_col(t, "Name", VP_COL_TEXT, 0);
    vp_table_add_col(t, "N", VP_COL_INT, 0);
    r = vp_table_add_row(t);
    vp_table_set_int(t, r, 0, 1500);
    vp_table_set_text(t, r, 1, long_name);
    vp_table_set_int(t, r, 2, 1);
    r = vp_table_add_row(t);
    vp_table_set_int(t, r, 0, 2500);
    vp_table_set_text(t, r, 1, "void gemm_kernel<float>(float*, int)");
    vp_table_set_int(t, r, 2, 22);
    r = vp_table_add_row(t);
    vp_table_set_int(t, r, 0, 3500);
    vp_table_set_text(t, r, 1, "short");
    vp_table_set_int(t, r, 2, 333);
    return t;
}

static void test_width_shortening(void **state)
{
    vp_table *t = names_table();
    vp_format_opts opts = {VP_FMT_TABLE, 80, 0, 0, NULL};
    char *got;

    (void)state;
    /* 80 columns: 7 + 2 + name + 2 + 3, so names get 66: the long name
     * loses its return type, parameters and template arguments (they
     * repeat one another), and the column is as wide as what is left. */
    got = render_n(&t, 1, &opts);
    assert_string_equal(got,
        "  Total  Name                                            N\n"
        "-------  --------------------------------------------  ---\n"
        "1.50 us  at::native::vectorized_elementwise_kernel<\xe2\x80\xa6>    1\n"
        "2.50 us  void gemm_kernel<float>(float*, int)           22\n"
        "3.50 us  short                                         333\n");
    free(got);

    /* Narrow: the parameter list, the template arguments and the
     * namespaces go before the cut. */
    opts.width = 44;
    got = render_n(&t, 1, &opts);
    assert_string_equal(got,
        "  Total  Name                              N\n"
        "-------  ------------------------------  ---\n"
        "1.50 us  vectorized_elementwise_kernel\xe2\x80\xa6    1\n"
        "2.50 us  gemm_kernel<float>(\xe2\x80\xa6)            22\n"
        "3.50 us  short                           333\n");
    free(got);

    /* Too narrow for anything: names still keep 20 columns. */
    opts.width = 10;
    got = render_n(&t, 1, &opts);
    assert_string_equal(got,
        "  Total  Name                    N\n"
        "-------  --------------------  ---\n"
        "1.50 us  vectorized_elementw\xe2\x80\xa6    1\n"
        "2.50 us  gemm_kernel<float>\xe2\x80\xa6    22\n"
        "3.50 us  short                 333\n");
    free(got);

    /* --full-names wins over the width. */
    opts.full_names = 1;
    got = render_n(&t, 1, &opts);
    assert_non_null(strstr(got, long_name));
    free(got);
    vp_table_free(t);
}

static void test_md(void **state)
{
    vp_table *t = names_table();
    size_t r = vp_table_add_row(t);

    (void)state;
    vp_table_set_text(t, r, 1, "a|b *c* x_y");
    vp_table_add_note(t, "widths ignored");
    assert_render(t, VP_FMT_MD,
        "| Total | Name | N |\n"
        "| ---: | --- | ---: |\n"
        "| 1.50 us | void at::native::vectorized\\_elementwise\\_kernel\\<4, "
        "at::native::FillFunctor\\<float>, at::detail::Array\\<char\\*, 1> >(int, "
        "at::native::FillFunctor\\<float>, at::detail::Array\\<char\\*, 1>) | 1 |\n"
        "| 2.50 us | void gemm\\_kernel\\<float>(float\\*, int) | 22 |\n"
        "| 3.50 us | short | 333 |\n"
        "| - | a\\|b \\*c\\* x\\_y | - |\n"
        "\n"
        "- note: widths ignored\n");
    vp_table_free(t);
}

static void test_md_several(void **state)
{
    vp_table *t[2];
    vp_format_opts opts = {VP_FMT_MD, 0, 0, 1, NULL};
    char *got;

    (void)state;
    t[0] = vp_table_new("a");
    vp_table_add_col(t[0], "Share", VP_COL_PERCENT, 1);
    vp_table_set_double(t[0], vp_table_add_row(t[0]), 0, 45.25);
    t[1] = vp_table_new("b");
    vp_table_add_col(t[1], "Ratio", VP_COL_RATIO, 0);
    vp_table_set_double(t[1], vp_table_add_row(t[1]), 0, 1.23456);
    got = render_n(t, 2, &opts);
    assert_string_equal(got,
        "### a\n\n| Share |\n| ---: |\n| 45.2% |\n"
        "\n"
        "### b\n\n| Ratio |\n| ---: |\n| 1.23 |\n");
    free(got);
    vp_table_free(t[0]);
    vp_table_free(t[1]);
}

/* Shortening counts code points and never cuts one in half. */
static void test_width_utf8(void **state)
{
    vp_table *t = vp_table_new("k");
    vp_format_opts opts = {VP_FMT_TABLE, 20, 0, 0, NULL};
    char *got;

    (void)state;
    vp_table_add_col(t, "Name", VP_COL_TEXT, 0);
    vp_table_set_text(t, vp_table_add_row(t), 0,
                      "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"
                      "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"
                      "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9");
    got = render_n(&t, 1, &opts);
    assert_string_equal(got,
        "Name\n--------------------\n"
        "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"
        "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"
        "\xc3\xa9\xc3\xa9\xc3\xa9\xe2\x80\xa6\n");
    free(got);
    vp_table_free(t);
}

static void test_defaults_and_write_error(void **state)
{
    vp_table *t = vp_table_new("t");
    char *text = NULL;
    size_t len = 0;
    FILE *f;

    (void)state;
    vp_table_add_col(t, "N", VP_COL_INT, 0);
    vp_table_set_int(t, vp_table_add_row(t), 0, -1234);
    f = open_memstream(&text, &len);
    assert_int_equal(vp_table_write(f, &t, 1, NULL), 0);
    fclose(f);
    assert_string_equal(text, "     N\n------\n-1,234\n");
    free(text);

    /* A stream that cannot be written to is reported. */
    f = fopen("/dev/null", "r");
    assert_non_null(f);
    assert_int_equal(vp_table_write(f, &t, 1, NULL), -1);
    fclose(f);
    vp_table_free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_model),
        cmocka_unit_test(test_format_parse),
        cmocka_unit_test(test_human_ratio),
        cmocka_unit_test(test_clock_machine_only),
        cmocka_unit_test(test_empty_text_cell),
        cmocka_unit_test(test_csv_nsys),
        cmocka_unit_test(test_csv_quoting),
        cmocka_unit_test(test_csv_numbers),
        cmocka_unit_test(test_tsv),
        cmocka_unit_test(test_csv_several),
        cmocka_unit_test(test_json),
        cmocka_unit_test(test_json_escaping),
        cmocka_unit_test(test_json_empty),
        cmocka_unit_test(test_human_ns),
        cmocka_unit_test(test_human_bytes),
        cmocka_unit_test(test_human_table),
        cmocka_unit_test(test_human_several_color),
        cmocka_unit_test(test_width_shortening),
        cmocka_unit_test(test_md),
        cmocka_unit_test(test_md_several),
        cmocka_unit_test(test_width_utf8),
        cmocka_unit_test(test_defaults_and_write_error),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
