// src/cli/run.ts starts oclif from the embedded manifest; --version answers before oclif loads, with oclif's line.
import { readFileSync } from 'node:fs';
import { Config } from '@oclif/core';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { KubeCommand } from '../../../src/cli/base-command.ts';
import { embeddedPlugin, run, userAgent } from '../../../src/cli/run.ts';

const pkg = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8'));
const pjson = {
  name: pkg.name as string,
  version: pkg.version as string,
  oclif: { bin: pkg.oclif.bin as string, topicSeparator: ' ' as const },
};

describe('the embedded oclif start', () => {
  it("prints oclif's own user agent for --version", async () => {
    const plugin = await embeddedPlugin({
      pjson,
      manifest: { version: pkg.version, commands: {} },
      root: '/nowhere',
      load: () => Promise.reject(new Error('no command')),
    });
    const config = await Config.load({ root: '/nowhere', pjson, plugins: new Map([[plugin.name, plugin]]) });
    expect(await userAgent(pjson)).toBe(config.userAgent);
  });

  it("lists the manifest's commands and loads a command's class only when it runs", async () => {
    const loaded: string[] = [];
    // biome-ignore lint/complexity/noStaticOnlyClass: an oclif command class is run through its static run()
    class Hello {
      static async run() {
        return 'hi';
      }
    }
    const manifest = {
      version: pkg.version,
      commands: { hello: { id: 'hello', aliases: [], args: {}, flags: {}, hidden: false, summary: 'Say hello.' } },
    };
    const plugin = await embeddedPlugin({
      pjson,
      manifest: manifest as never,
      root: '/nowhere',
      load: async (id) => {
        loaded.push(id);
        return Hello as never;
      },
    });
    const config = await Config.load({ root: '/nowhere', pjson, plugins: new Map([[plugin.name, plugin]]) });
    expect(config.commandIDs).toEqual(['hello']);
    expect(config.findCommand('hello')?.summary).toBe('Say hello.');
    expect(loaded).toEqual([]);
    expect(await config.runCommand('hello', [])).toBe('hi');
    expect(loaded).toEqual(['hello']);
  });

  afterEach(() => vi.restoreAllMocks());

  it("reads the user's help theme for help only, not on a command's start", async () => {
    const loadTheme = vi.spyOn(Config.prototype, 'loadTheme');
    vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    vi.spyOn(console, 'log').mockImplementation(() => {});
    const themes: unknown[] = [];
    // biome-ignore lint/complexity/noStaticOnlyClass: an oclif command class is run through its static run()
    class Hello {
      static async run(_argv: string[], config: Config) {
        themes.push(config.theme);
      }
    }
    const manifest = {
      version: pkg.version,
      commands: { hello: { id: 'hello', aliases: [], args: {}, flags: {}, hidden: false, summary: 'Say hello.' } },
    };
    const embedded = { pjson, manifest: manifest as never, root: '/nowhere', load: async () => Hello as never };
    await run(embedded, ['hello']);
    expect(themes).toEqual([undefined]);
    expect(loadTheme).not.toHaveBeenCalled();
    await run(embedded, ['hello', '--help']);
    expect(loadTheme).toHaveBeenCalledTimes(1);
    expect(themes).toHaveLength(1);
  });

  it('runs a command on the Config it was given, without loading a second one', async () => {
    const configs: Config[] = [];
    class Hello extends KubeCommand {
      async run() {
        await this.parse(Hello);
        configs.push(this.config);
      }
    }
    const manifest = {
      version: pkg.version,
      commands: { hello: { id: 'hello', aliases: [], args: {}, flags: {}, hidden: false, summary: 'Say hello.' } },
    };
    const plugin = await embeddedPlugin({
      pjson,
      manifest: manifest as never,
      root: '/nowhere',
      load: async () => Hello,
    });
    const config = new Config({ root: '/nowhere', pjson, plugins: new Map([[plugin.name, plugin]]) });
    await config.load();
    const load = vi.spyOn(Config.prototype, 'load');
    const loadTheme = vi.spyOn(Config.prototype, 'loadTheme');
    await config.runCommand('hello', []);
    expect(configs).toEqual([config]);
    expect(configs[0]).toBe(config);
    expect(load).not.toHaveBeenCalled();
    expect(loadTheme).not.toHaveBeenCalled();
  });
});
