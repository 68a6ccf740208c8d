/**
 * Sets environment variables for a test file (a fake vendor's addresses, say) and gives back a function that puts
 * the previous values back: a platform's configuration is read from the environment, as an operator sets it.
 */
export function setEnv(variables: Record<string, string>): () => void {
  const saved = new Map<string, string | undefined>();
  for (const [name, value] of Object.entries(variables)) {
    saved.set(name, process.env[name]);
    process.env[name] = value;
  }
  return () => {
    for (const [name, value] of saved) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  };
}
