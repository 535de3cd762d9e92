package printers

import (
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/kubeloop/kubeloop/engine/kinds"
)

// PriorityClass's columns (printers.go printPriorityClass): VALUE is the
// integer, GLOBAL-DEFAULT true or false, PREEMPTIONPOLICY after AGE.
func init() {
	register(kinds.PriorityClass, &table{columns: []column{
		{name: "Name"}, {name: "Value"}, {name: "Global-Default"}, {name: "Age"}, {name: "PreemptionPolicy"},
	}, row: func(o kinds.Object, now time.Time) []string {
		pc := o.(*schedulingv1.PriorityClass)
		policy := ""
		if pc.PreemptionPolicy != nil {
			policy = string(*pc.PreemptionPolicy)
		}
		return []string{pc.Name, itoa(pc.Value), strconv.FormatBool(pc.GlobalDefault), since(pc.CreationTimestamp.Time, now), policy}
	}})
}

// priorityClass is kubectl's describePriorityClass.
func (d *describer) priorityClass(pc *schedulingv1.PriorityClass, events []*corev1.Event) {
	d.write(0, "Name:\t%s\n", pc.Name)
	d.write(0, "Value:\t%v\n", pc.Value)
	d.write(0, "GlobalDefault:\t%v\n", pc.GlobalDefault)
	policy := ""
	if pc.PreemptionPolicy != nil {
		policy = string(*pc.PreemptionPolicy)
	}
	d.write(0, "PreemptionPolicy:\t%s\n", policy)
	d.write(0, "Description:\t%s\n", pc.Description)
	d.write(0, "Annotations:\t%s\n", labels.FormatLabels(pc.Annotations))
	d.events(events)
}
