package kubeapiserver

import (
	"context"
	"errors"
	"fmt"
	"strings"

	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// UsersNamespace holds the ServiceAccounts behind NewUser's users.
const UsersNamespace = "kubeapiserver-users"

// Grant is what NewUser binds a user to: a Role or ClusterRole, in one
// namespace (a RoleBinding) or cluster-wide (a ClusterRoleBinding).
type Grant struct {
	// Namespace of the RoleBinding; "" binds cluster-wide, which needs a
	// ClusterRole.
	Namespace string
	// Rules, when set, make a new role for this grant: a Role in Namespace,
	// or a ClusterRole when Namespace is "". Role must then be empty.
	Rules []rbacv1.PolicyRule
	// Role names an existing role (Kind "Role" or "ClusterRole"; APIGroup
	// may be empty) when Rules is empty.
	Role rbacv1.RoleRef
}

// User is a user NewUser made: a ServiceAccount with a token.
type User struct {
	// Name is the user name the API server authenticates the token as
	// (system:serviceaccount:kubeapiserver-users:NAME), as it appears in
	// RBAC's 403 messages.
	Name string
	// Config is a client config that authenticates with the user's token
	// (valid 48 hours), QPS=-1.
	Config *rest.Config
}

// NewUser creates a user called name (a ServiceAccount in UsersNamespace
// with a token from the TokenRequest API), binds it as grants say, and
// returns once the server authenticates the token and RBAC allows the first
// rule of every grant (RBAC reads bindings through informers, so a new
// binding takes effect a moment after its creation). name must be a valid
// object name not used by an earlier NewUser of this server.
func (s *Server) NewUser(ctx context.Context, name string, grants ...Grant) (*User, error) {
	c := s.client
	if err := s.CreateNamespace(ctx, UsersNamespace); err != nil {
		return nil, err
	}
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: UsersNamespace}}
	if _, err := c.CoreV1().ServiceAccounts(UsersNamespace).Create(ctx, sa, metav1.CreateOptions{}); err != nil {
		return nil, fmt.Errorf("creating the ServiceAccount of user %s: %w", name, err)
	}
	expiry := int64(48 * 3600)
	tr, err := c.CoreV1().ServiceAccounts(UsersNamespace).CreateToken(ctx, name, &authenticationv1.TokenRequest{
		Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: &expiry},
	}, metav1.CreateOptions{})
	if err != nil {
		return nil, fmt.Errorf("requesting a token for user %s: %w", name, err)
	}
	u := &User{Name: "system:serviceaccount:" + UsersNamespace + ":" + name, Config: s.Config()}
	u.Config.BearerToken = tr.Status.Token
	subject := rbacv1.Subject{Kind: rbacv1.ServiceAccountKind, Name: name, Namespace: UsersNamespace}
	var checks []authorizationv1.ResourceAttributes
	for n, g := range grants {
		check, err := s.bind(ctx, fmt.Sprintf("%s-%d", name, n), subject, g)
		if err != nil {
			return nil, fmt.Errorf("user %s: %w", name, err)
		}
		if check != nil {
			checks = append(checks, *check)
		}
	}
	if err := s.waitUser(ctx, u, checks); err != nil {
		return nil, err
	}
	return u, nil
}

// bind creates the role (if g has Rules) and the binding, and returns an
// access check that holds once the binding is in effect (nil if the role
// has no resource rule to check).
func (s *Server) bind(ctx context.Context, name string, subject rbacv1.Subject, g Grant) (*authorizationv1.ResourceAttributes, error) {
	c := s.client.RbacV1()
	ref := g.Role
	rules := g.Rules
	switch {
	case len(g.Rules) > 0 && ref.Name != "":
		return nil, errors.New("a grant has both Rules and Role")
	case len(g.Rules) > 0 && g.Namespace == "":
		r := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: name}, Rules: g.Rules}
		if _, err := c.ClusterRoles().Create(ctx, r, metav1.CreateOptions{}); err != nil {
			return nil, fmt.Errorf("creating ClusterRole %s: %w", name, err)
		}
		ref = rbacv1.RoleRef{Kind: "ClusterRole", Name: name}
	case len(g.Rules) > 0:
		r := &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: g.Namespace}, Rules: g.Rules}
		if _, err := c.Roles(g.Namespace).Create(ctx, r, metav1.CreateOptions{}); err != nil {
			return nil, fmt.Errorf("creating Role %s/%s: %w", g.Namespace, name, err)
		}
		ref = rbacv1.RoleRef{Kind: "Role", Name: name}
	case ref.Kind == "ClusterRole":
		r, err := c.ClusterRoles().Get(ctx, ref.Name, metav1.GetOptions{})
		if err != nil {
			return nil, fmt.Errorf("reading ClusterRole %s: %w", ref.Name, err)
		}
		rules = r.Rules
	case ref.Kind == "Role" && g.Namespace != "":
		r, err := c.Roles(g.Namespace).Get(ctx, ref.Name, metav1.GetOptions{})
		if err != nil {
			return nil, fmt.Errorf("reading Role %s/%s: %w", g.Namespace, ref.Name, err)
		}
		rules = r.Rules
	default:
		return nil, fmt.Errorf("a grant names role %q of kind %q in namespace %q: want a Role in a namespace or a ClusterRole", ref.Name, ref.Kind, g.Namespace)
	}
	ref.APIGroup = rbacv1.GroupName
	if g.Namespace == "" {
		b := &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: name}, Subjects: []rbacv1.Subject{subject}, RoleRef: ref}
		if _, err := c.ClusterRoleBindings().Create(ctx, b, metav1.CreateOptions{}); err != nil {
			return nil, fmt.Errorf("creating ClusterRoleBinding %s: %w", name, err)
		}
	} else {
		b := &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: g.Namespace}, Subjects: []rbacv1.Subject{subject}, RoleRef: ref}
		if _, err := c.RoleBindings(g.Namespace).Create(ctx, b, metav1.CreateOptions{}); err != nil {
			return nil, fmt.Errorf("creating RoleBinding %s/%s: %w", g.Namespace, name, err)
		}
	}
	for _, r := range rules {
		if len(r.Verbs) == 0 || len(r.Resources) == 0 || len(r.APIGroups) == 0 {
			continue
		}
		return &authorizationv1.ResourceAttributes{
			Namespace: g.Namespace,
			Verb:      r.Verbs[0],
			Group:     strings.ReplaceAll(r.APIGroups[0], "*", ""),
			Resource:  strings.ReplaceAll(r.Resources[0], "*", "pods"),
		}, nil
	}
	return nil, nil
}

// waitUser waits until the user's token authenticates and every check is
// allowed for the user.
func (s *Server) waitUser(ctx context.Context, u *User, checks []authorizationv1.ResourceAttributes) error {
	uc, err := kubernetes.NewForConfig(u.Config)
	if err != nil {
		return fmt.Errorf("building user %s's client: %w", u.Name, err)
	}
	var last error
	err = s.poll(ctx, func() (bool, error) {
		r, err := uc.AuthenticationV1().SelfSubjectReviews().Create(ctx, &authenticationv1.SelfSubjectReview{}, metav1.CreateOptions{})
		switch {
		case apierrors.IsUnauthorized(err):
			last = fmt.Errorf("the token is not accepted yet: %w", err)
			return false, nil
		case err != nil:
			return false, fmt.Errorf("reviewing user %s: %w", u.Name, err)
		case r.Status.UserInfo.Username != u.Name:
			return false, fmt.Errorf("user %s's token authenticates as %q", u.Name, r.Status.UserInfo.Username)
		}
		for _, ra := range checks {
			sar := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
				User: u.Name, Groups: r.Status.UserInfo.Groups, ResourceAttributes: &ra,
			}}
			got, err := s.client.AuthorizationV1().SubjectAccessReviews().Create(ctx, sar, metav1.CreateOptions{})
			if err != nil {
				return false, fmt.Errorf("checking user %s's access: %w", u.Name, err)
			}
			if !got.Status.Allowed {
				last = fmt.Errorf("RBAC does not allow %s %s.%s in %q yet: %s", ra.Verb, ra.Resource, ra.Group, ra.Namespace, got.Status.Reason)
				return false, nil
			}
		}
		return true, nil
	})
	if err != nil {
		return fmt.Errorf("waiting for user %s: %w", u.Name, errors.Join(err, last))
	}
	return nil
}
