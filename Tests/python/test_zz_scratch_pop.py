import json, subprocess, sys, time, pathlib
HERE = pathlib.Path(__file__).resolve().parent
def test_scratch(brokered_bus):
    info, env = brokered_bus
    authority = f"{info['https']}/{info['tenant_id']}"
    run = subprocess.run(["gdb", "-batch", "-iex", "set auto-load safe-path /nonexistent", "-x", "/tmp/pop3.py", "-ex", "run", "--args", sys.executable, str(HERE / "broker_pop_client.py"), authority, info["client_id"],
                          info["https"] + "/v1.0/me", info["https"] + "/v1.0/users/adele@contoso.onmicrosoft.com"],
                         env=env, capture_output=True, text=True, timeout=500)
    open("/tmp/popgdb.txt", "w").write(run.stdout + "\n---\n" + run.stderr)
