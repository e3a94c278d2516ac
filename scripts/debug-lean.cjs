// What oclif's logger (the bundle's only user of debug) calls: debug(namespace), a function that logs when DEBUG
// names that namespace. The package reads DEBUG once, as it loads, and loading it loads node:tty, node:stream and
// supports-color: about 5 ms of every start. It loads here only when DEBUG is set; without it every namespace is
// off, as the package itself would answer. scripts/build.js resolves oclif's require("debug") here.
if (process.env.DEBUG) module.exports = require('debug');
else {
  const off = (namespace) => {
    const log = () => {};
    log.namespace = namespace;
    log.enabled = false;
    log.extend = (sub, delimiter = ':') => off(`${namespace}${delimiter}${sub}`);
    log.destroy = () => false;
    return log;
  };
  off.enabled = () => false;
  off.enable = () => {};
  off.disable = () => '';
  module.exports = off;
}
