// Preloaded with NODE_OPTIONS=--import when /usr/bin/time is missing: reports the process's peak RSS on stderr at exit.
process.on('exit', () => process.stderr.write(`maxrss-kib=${process.resourceUsage().maxRSS}\n`));
