// What the bundle uses of wsl-utils: isWsl (is-wsl's own answer, which oclif's Config.load asks on every start for
// its platform, and --version prints) and powerShellPath (which oclif asks only to name the shell of a Windows
// parent without $SHELL). wsl-utils' index loads child_process, fs/promises and powershell-utils as it loads; this
// loads is-wsl alone, and wsl-utils itself only if powerShellPath is called. scripts/build.js resolves the bare
// import "wsl-utils" here, except from this file.
import isWsl from 'is-wsl';

export { isWsl };

export async function powerShellPath() {
  return (await import('wsl-utils')).powerShellPath();
}
