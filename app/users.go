package app

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/discolab/disco/internal/ids"
	"github.com/discolab/disco/internal/store"
)

func newUsersCommand() *cobra.Command {
	users := &cobra.Command{Use: "users", Short: "Manage the users who sign in through OAuth"}
	var dsn, tenant, username string
	create := &cobra.Command{
		Use:   "create",
		Short: "Create a user; the password is read from stdin",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if !ids.Valid(ids.Tenant, tenant) {
				return fmt.Errorf("--tenant %q is not a tenant id (ten_ followed by 26 characters)", tenant)
			}
			if username == "" {
				return errors.New("--username is required")
			}
			fmt.Fprint(cmd.ErrOrStderr(), "password: ")
			line, err := bufio.NewReader(cmd.InOrStdin()).ReadString('\n')
			if err != nil && line == "" {
				return fmt.Errorf("read password: %w", err)
			}
			password := strings.TrimRight(line, "\r\n")
			if len(password) < 8 {
				return errors.New("the password must have at least 8 characters")
			}
			st, err := store.Open(cmd.Context(), dsn)
			if err != nil {
				return err
			}
			defer st.Close()
			u, err := st.CreateUser(cmd.Context(), tenant, username, password)
			if err != nil {
				return err
			}
			fmt.Fprintln(cmd.OutOrStdout(), u.ID)
			return nil
		},
	}
	create.Flags().StringVar(&dsn, "store-dsn", envOr("DISCO_STORE_DSN", "sqlite://.disco/disco.db"), "SQL store")
	create.Flags().StringVar(&tenant, "tenant", "", "tenant id (ten_...)")
	create.Flags().StringVar(&username, "username", "", "user name")
	users.AddCommand(create)

	// Disabling or deleting a user ends every session they hold at once: the facade checks
	// the user on each use of a session token, refresh token or authorization code (issue
	// 17). Enabling lets the user sign in again; sessions ended by disabling stay ended.
	for _, c := range []struct {
		use, short, done string
		run              func(*store.Store, context.Context, string) error
	}{
		{"disable NAME", "Disable a user: no sign-in, and every session of theirs ends now", "disabled", (*store.Store).DisableUser},
		{"enable NAME", "Let a disabled user sign in again (ended sessions stay ended)", "enabled", (*store.Store).EnableUser},
		{"delete NAME", "Delete a user; every session of theirs ends now", "deleted", (*store.Store).DeleteUser},
	} {
		var dsn string
		cmd := &cobra.Command{
			Use:   c.use,
			Short: c.short,
			Args:  cobra.ExactArgs(1),
			RunE: func(cmd *cobra.Command, args []string) error {
				st, err := store.Open(cmd.Context(), dsn)
				if err != nil {
					return err
				}
				defer st.Close()
				if err := c.run(st, cmd.Context(), args[0]); errors.Is(err, store.ErrNotFound) {
					return fmt.Errorf("there is no user %q", args[0])
				} else if err != nil {
					return err
				}
				fmt.Fprintf(cmd.OutOrStdout(), "%s %s\n", c.done, args[0])
				return nil
			},
		}
		cmd.Flags().StringVar(&dsn, "store-dsn", envOr("DISCO_STORE_DSN", "sqlite://.disco/disco.db"), "SQL store")
		users.AddCommand(cmd)
	}
	return users
}

func envOr(key, def string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	return def
}
