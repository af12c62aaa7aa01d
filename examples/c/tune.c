/* Tune a broadcast and a barrier from C with libmodelopt (see docs/api.md).
 *
 * Build (from the repository root, after `cargo build -p modelopt-capi`):
 *   cc -std=c99 -Wall -Icrates/capi/include examples/c/tune.c target/debug/libmodelopt.a \
 *      -lpthread -ldl -lm -o tune
 *   ./tune xeon-phi 60
 *
 * Prints one `key value` line per number, so a test can compare them with the Rust library.
 */
#include <stdio.h>
#include <stdlib.h>

#include "modelopt.h"

static int fail(const char *what, modelopt_error *err) {
    fprintf(stderr, "%s: %s\n", what, modelopt_error_message(err));
    modelopt_error_free(err);
    return 2;
}

int main(int argc, char **argv) {
    const char *name = argc > 1 ? argv[1] : "xeon-phi";
    long threads = argc > 2 ? strtol(argv[2], NULL, 10) : 60;
    modelopt_error *err = NULL;

    modelopt_machine *m = modelopt_machine_load(name, &err);
    if (m == NULL) {
        return fail("load", err);
    }
    printf("version %s\n", modelopt_version());
    printf("machine %s\n", modelopt_machine_name(m));

    /* One small item broadcast: the optimal level-degree tree (seed 000, Eq. 4.7). */
    modelopt_result *r = modelopt_tune(m, MODELOPT_BCAST, threads, /* size */ 0, &err);
    if (r == NULL) {
        modelopt_machine_free(m);
        return fail("bcast", err);
    }
    printf("bcast.algorithm %s\n", modelopt_result_algorithm(r));
    printf("bcast.t_min_ns %.3f\n", modelopt_result_t_min_ns(r));
    printf("bcast.t_max_ns %.3f\n", modelopt_result_t_max_ns(r));
    int depth = modelopt_result_tree_depth(r);
    printf("bcast.depth %d\n", depth);
    for (int i = 0; i < depth; i++) {
        printf("bcast.k%d %d\n", i + 1, modelopt_result_tree_degree(r, (size_t)i));
    }
    modelopt_result_free(r);

    /* Barrier, worst case: the dissemination degree m and rounds r (seed 000, Table B.2). */
    r = modelopt_tune_with(m, MODELOPT_BARRIER, threads, 0, "max", NULL, NULL, 1, false, &err);
    if (r == NULL) {
        modelopt_machine_free(m);
        return fail("barrier", err);
    }
    printf("barrier.algorithm %s\n", modelopt_result_algorithm(r));
    printf("barrier.t_min_ns %.3f\n", modelopt_result_t_min_ns(r));
    printf("barrier.t_max_ns %.3f\n", modelopt_result_t_max_ns(r));
    printf("barrier.m %d\n", modelopt_result_dissemination_degree(r));
    printf("barrier.r %d\n", modelopt_result_dissemination_rounds(r));
    int64_t rounds = 0;
    if (modelopt_result_param_named(r, "rounds", &rounds)) {
        printf("barrier.rounds %lld\n", (long long)rounds);
    }
    modelopt_result_free(r);

    /* A bad request: the error carries the CLI's one-line message. */
    r = modelopt_tune(m, MODELOPT_BARRIER, 1, 0, &err);
    if (r == NULL) {
        printf("error %s\n", modelopt_error_message(err));
        modelopt_error_free(err);
    }
    modelopt_machine_free(m);
    return 0;
}
