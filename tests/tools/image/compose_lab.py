"""docker/compose.yaml's services, started with podman the way `docker compose up` would.

Podman has no compose and podman-compose is not needed for two services: this reads the file and
turns each service into `podman run` (command, environment with ${VAR:-default} / ${VAR:?msg}
substitution, cap_add, networks, volumes) and each network into `podman network create`
(internal, the MTU of driver_opts). What compose gives through its DNS (the service name as a
host name) is given by --add-host with the service's address on the first network, so no DNS
plugin is needed. The health check is the file's own `test`, run with `podman exec`.
"""

import re
import time

import yaml

_VAR = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:-|:\?)([^}]*))?\}")


def substitute(value, env):
    def one(m):
        name, op, arg = m.group(1), m.group(2), m.group(3)
        if env.get(name):
            return env[name]
        if op == ":-":
            return arg
        raise ValueError("compose.yaml: %s is not set (%s)" % (name, arg or "required"))
    return _VAR.sub(one, str(value))


def _seconds(text):
    m = re.fullmatch(r"(\d+(?:\.\d+)?)(ms|s|m)?", str(text))
    if not m:
        raise ValueError("compose.yaml: cannot read duration %r" % text)
    return float(m.group(1)) * {"ms": 0.001, "s": 1, "m": 60, None: 1}[m.group(2)]


class ComposeLab:
    def __init__(self, pod, compose_path, image, env, volume_override):
        self.pod = pod
        self.image = image
        self.env = env
        self.volume_override = volume_override  # container path -> host folder of the test
        with open(compose_path) as f:
            self.doc = yaml.safe_load(f)
        self.project = self.doc.get("name", "lab")
        self.services = self.doc["services"]
        self.started = []
        self.networks_made = {}
        self.addresses = {}

    def _network(self, name):
        if name in self.networks_made:
            return self.networks_made[name]
        spec = (self.doc.get("networks") or {}).get(name) or {}
        full = "%s_%s" % (self.project, name)
        args = ["network", "create"]
        if spec.get("internal"):
            args.append("--internal")
        mtu = (spec.get("driver_opts") or {}).get("com.docker.network.driver.mtu")
        if mtu:
            args += ["--opt", "mtu=%s" % mtu]
        self.pod.run(args + [full], 60, "podman network create " + full)
        self.networks_made[name] = full
        return full

    def _run_args(self, service, detach):
        s = self.services[service]
        args = ["run", "--name", "%s_%s" % (self.project, service), "--hostname", service]
        args.append("-d" if detach else "--rm")
        for net, ifname in self._service_networks(service):
            args += ["--network", self._network(net) + (":interface_name=" + ifname if ifname else "")]
        for other, addr in self.addresses.items():
            args += ["--add-host", "%s:%s" % (other, addr)]
        for cap in s.get("cap_add", []):
            args += ["--cap-add", cap]
        for k, v in (s.get("environment") or {}).items():
            args += ["-e", "%s=%s" % (k, substitute(v, self.env))]
        for vol in s.get("volumes", []):
            _host, container = vol.split(":", 1)
            if container not in self.volume_override:
                raise ValueError("compose.yaml: volume %s of %s has no stand-in in the test" % (vol, service))
            args += ["-v", "%s:%s" % (self.volume_override[container], container)]
        return args + [self.image] + [substitute(a, self.env) for a in s["command"]]

    def up_until_healthy(self, service):
        """Starts `service` detached and waits for its health check (interval x retries bound)."""
        name = "%s_%s" % (self.project, service)
        self.pod.run(self._run_args(service, detach=True), 120, "podman run " + name)
        self.started.append(name)
        net = self._network(self._service_networks(service)[0][0])
        fmt = '{{(index .NetworkSettings.Networks "%s").IPAddress}}' % net
        self.addresses[service] = self.pod.run(["inspect", "--format", fmt, name], 60, "inspect " + name).stdout.strip()
        self._check_interface_order(service, name)
        hc = self.services[service]["healthcheck"]
        test = hc["test"]
        cmd = test[1:] if test[0] == "CMD" else ["sh", "-c", test[1] if test[0] == "CMD-SHELL" else test]
        interval, retries = _seconds(hc.get("interval", "5s")), int(hc.get("retries", 3))
        for _ in range(retries):
            p = self.pod.run(["exec", name] + cmd, _seconds(hc.get("timeout", "5s")) + 30,
                             "health check of " + name, check=False)
            if p.returncode == 0:
                return
            time.sleep(interval)
        raise RuntimeError("%s: health check %s did not pass in %d tries %.0f s apart (healthcheck bound)\n%s"
                           % (name, cmd, retries, interval, self.logs(service)))

    def _service_networks(self, service):
        """[(network, interface_name or None)] in the file's order (list or mapping form)."""
        nets = self.services[service].get("networks", [])
        if isinstance(nets, dict):
            return [(n, (v or {}).get("interface_name")) for n, v in nets.items()]
        return [(n, None) for n in nets]

    def _check_interface_order(self, service, name):
        """The file cables plane N to the interface it names (interface_name): the interface of
        that name must be the one on that network, checked by MAC address."""
        for net, ifname in self._service_networks(service):
            if not ifname:
                continue
            fmt = '{{(index .NetworkSettings.Networks "%s").MacAddress}}' % self.networks_made[net]
            want = self.pod.run(["inspect", "--format", fmt, name], 60, "inspect " + name).stdout.strip()
            got = self.pod.run(["exec", name, "cat", "/sys/class/net/%s/address" % ifname], 60,
                               "interfaces of " + name, check=False).stdout.strip()
            if got.lower() != want.lower():
                raise RuntimeError("%s: %s has MAC %s, but network %s gave its interface_name %s the MAC %s"
                                   % (name, ifname, got or "(none)", net, ifname, want))

    def down(self, service):
        name = "%s_%s" % (self.project, service)
        self.pod.run(["rm", "--force", "--time", "5", name], 60, "removal of " + name)
        self.addresses.pop(service, None)

    def run_to_end(self, service, extra_args, bound_s):
        name = "%s_%s" % (self.project, service)
        self.started.append(name)
        return self.pod.run(self._run_args(service, detach=False) + extra_args, bound_s,
                            "%s run (%s bound)" % (name, service), check=False)

    def logs(self, service):
        name = "%s_%s" % (self.project, service)
        try:
            return self.pod.run(["logs", name], 30, "logs of " + name, check=False).stdout[-3000:]
        except Exception as e:  # a log is a help for the reader, never the reason of a failure
            return "(no log: %s)" % e
