package workload

import (
	"strconv"
	"strings"

	"github.com/kubeloop/kubeloop/engine/sim"
)

// Render fills in a log line's placeholders: {time:LAYOUT} with the virtual
// time t in the Go layout (UTC), {ip} and {hostname} with the pod's IP and
// name, {unix} with the virtual time in Unix seconds. Unknown placeholders
// are left as they are.
func Render(text string, t sim.Tick, ip, hostname string) string {
	if !strings.Contains(text, "{") {
		return text
	}
	var b strings.Builder
	for {
		i := strings.IndexByte(text, '{')
		if i < 0 {
			b.WriteString(text)
			return b.String()
		}
		j := strings.IndexByte(text[i:], '}')
		if j < 0 {
			b.WriteString(text)
			return b.String()
		}
		b.WriteString(text[:i])
		field := text[i+1 : i+j]
		switch {
		case field == "ip":
			b.WriteString(ip)
		case field == "hostname":
			b.WriteString(hostname)
		case field == "unix":
			b.WriteString(strconv.FormatInt(t.Time().Unix(), 10))
		case strings.HasPrefix(field, "time:"):
			b.WriteString(t.Time().Format(field[len("time:"):]))
		default:
			b.WriteString(text[i : i+j+1])
		}
		text = text[i+j+1:]
	}
}
