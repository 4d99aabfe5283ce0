// +groupName=beta.example.com

package v1
