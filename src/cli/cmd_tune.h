/*
 * cmd_tune.h - `arbiter calibrate --tune` (cmd_tune.c), which cmd_calibrate.c
 * hands over to when its arguments hold --tune.
 */
#ifndef ARBITER_CLI_CMD_TUNE_H
#define ARBITER_CLI_CMD_TUNE_H

/* 1 when argv (a `calibrate` command line) asks for --tune. */
int cli_tune_wanted(int argc, char **argv);

/* Run `calibrate --tune ...` (argv[0] is "calibrate"); returns the exit code. */
int cli_tune_run(int argc, char **argv);

#endif
