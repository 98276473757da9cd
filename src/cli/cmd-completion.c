/* `rooftime completion bash`: a completion script generated from the command table; a word that
 * starts with '-' completes from the long options of the command's own help (`rooftime help
 * COMMAND`), so a new option (`diff --gate`, `--junit` ...) completes without a line here. */
#include <string.h>

#include "commands.h"

int cmd_completion(int argc, char **argv)
{
    if (argc != 2 || strcmp(argv[1], "bash") != 0)
        return cli_usage_error("completion", "the only shell supported is bash");
    printf("# bash completion for rooftime: eval \"$(rooftime completion bash)\"\n"
           "_rooftime() {\n"
           "    local cur=${COMP_WORDS[COMP_CWORD]}\n"
           "    if [ \"$COMP_CWORD\" -eq 1 ]; then\n"
           "        COMPREPLY=($(compgen -W \"");
    for (size_t i = 0; i < rt_n_commands; i++)
        printf("%s%s", i ? " " : "", rt_commands[i]->name);
    printf("\" -- \"$cur\"))\n"
           "    elif [[ $cur == -* ]]; then\n"
           "        local opts\n"
           "        opts=$(rooftime help \"${COMP_WORDS[1]}\" 2>/dev/null |\n"
           "               grep -o -- '--[a-z][a-z0-9-]*' | sort -u)\n"
           "        COMPREPLY=($(compgen -W \"$opts\" -- \"$cur\"))\n"
           "    else\n"
           "        COMPREPLY=($(compgen -f -- \"$cur\"))\n"
           "    fi\n"
           "}\n"
           "complete -o filenames -F _rooftime rooftime\n");
    return RT_EXIT_OK;
}

/* `rooftime completion`: name, entry point, summary and usage (main.c lists it). */
const rt_command rt_cmd_completion = {
    "completion", cmd_completion, "print a shell completion script",
    "rooftime completion bash\n"
    "\n"
    "Prints a bash script to standard output that completes rooftime's commands, their long\n"
    "options (read from `rooftime help COMMAND` as you type) and file names.",
    "  eval \"$(rooftime completion bash)\"                 # in ~/.bashrc: completion from now "
    "on\n"
    "  rooftime completion bash > /etc/bash_completion.d/rooftime   # for every user\n"};
