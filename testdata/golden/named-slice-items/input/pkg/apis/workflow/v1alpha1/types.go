package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// +genclient
// +kubebuilder:resource:shortName=wf

// Workflow is a test kind.
type Workflow struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec WorkflowSpec `json:"spec"`
}

// WorkflowSpec is the spec of a Workflow.
type WorkflowSpec struct {
	Size string `json:"size,omitempty"`
}

// WorkflowList is a list of Workflow.
type WorkflowList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items Workflows `json:"items"`
}

// Workflows is a sortable list of workflows.
type Workflows []Workflow

// Len is the number of workflows.
func (w Workflows) Len() int { return len(w) }

// +genclient

// WorkflowTemplate is a test kind.
type WorkflowTemplate struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec WorkflowTemplateSpec `json:"spec"`
}

// WorkflowTemplateSpec is the spec of a WorkflowTemplate.
type WorkflowTemplateSpec struct {
	Size string `json:"size,omitempty"`
}

// WorkflowTemplateList is a list of WorkflowTemplate.
type WorkflowTemplateList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items WorkflowTemplates `json:"items"`
}

// WorkflowTemplates is a list of pointers to workflow templates.
type WorkflowTemplates []*WorkflowTemplate
