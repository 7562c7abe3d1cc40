/*
 * shell_unused.h - for a test that #includes a kernel file defining a
 * SHELL_COMMAND() that another test file of the same binary registers
 * already: each entry becomes an unused static instead of a member of the
 * shell_cmds link section, so shell_find() finds one command per name.
 * Include after <shell/shell.h> and before the kernel file; call the
 * command's function directly.
 */
#undef SHELL_COMMAND
#define SHELL_COMMAND(ident, ...)						\
	static const struct shell_cmd shell_cmd_##ident __attribute__((unused)) = { __VA_ARGS__ }
