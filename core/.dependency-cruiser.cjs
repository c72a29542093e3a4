// The layers of core/src, enforced in npm test (`depcruise --config .dependency-cruiser.cjs src`).
// Lowest first, as docs/architecture.md draws them: a module imports from its own layer or a lower one,
// and no runtime import cycle exists anywhere. Type-only imports are free (they vanish at run time).
const LAYERS = ['core', 'data', 'registry', 'wrappers', 'tools', 'multiagent', 'envs', 'vector', 'server', 'eval', 'ui', 'cli'];

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'a runtime import cycle',
      severity: 'error',
      from: {},
      to: { circular: true, dependencyTypesNot: ['type-only'] },
    },
    ...LAYERS.slice(0, -1).map((layer, i) => ({
      name: `${layer}-imports-no-higher-layer`,
      comment: `src/${layer} sits below ${LAYERS.slice(i + 1).join(', ')} (docs/architecture.md)`,
      severity: 'error',
      from: {
        path: `^src/${layer}/`,
        // The one listed exception: the code grader runs programs in the Python sandbox, which lives
        // in tools/python but is infrastructure below both (moving it is an open item of issue 25).
        pathNot: layer === 'data' ? '^src/data/graders/code/' : undefined,
      },
      to: { path: `^src/(${LAYERS.slice(i + 1).join('|')})/`, dependencyTypesNot: ['type-only'] },
    })),
    {
      name: 'registry-binds-no-data',
      comment: 'options that name data are bound by the registration\'s binding hook (core/spec.ts OptionBinding), not by the registry; it holds only the default dataset registry',
      severity: 'error',
      from: { path: '^src/registry/' },
      to: { path: '^src/data/', pathNot: '^src/data/datasetRegistry\\.ts$', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'code-grader-uses-only-the-sandbox',
      comment: 'the exception above covers the sandbox, nothing else of tools/',
      severity: 'error',
      from: { path: '^src/data/graders/code/' },
      to: { path: `^src/(${LAYERS.slice(2).join('|')})/`, pathNot: '^src/tools/python/(sandbox|isolation|pythonRuntime)\\.ts$', dependencyTypesNot: ['type-only'] },
    },
  ],
  options: {
    tsPreCompilationDeps: false,
    doNotFollow: { path: 'node_modules' },
    tsConfig: { fileName: 'tsconfig.json' },
  },
};
